package dev.lockstep.bench.plugins;

import dev.lockstep.bench.report.Args;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns {@link PaimonPluginBench}'s result lines into the section "5. Paimon with Lockstep's Paimon
 * plugins" of RESULTS.md, between the markers {@value #BEGIN} and {@value #END} (replaced when
 * present, appended otherwise). Reports the goals, never asserts them.
 *
 * <p>Arguments: {@code --results FILE --markdown RESULTS.md --command TEXT --sizes TEXT}, and
 * optionally {@code --note TEXT} (a paragraph about this run).
 */
public final class PluginReport {

  static final String BEGIN = "<!-- paimon-plugins:begin -->";
  static final String END = "<!-- paimon-plugins:end -->";

  private PluginReport() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    List<String[]> commits = new ArrayList<>();
    List<String[]> ingest = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(Args.required(a, "results")))) {
      String[] f = line.split("\t");
      if (f[0].equals("commits")) {
        commits.add(f);
      } else if (f[0].equals("ingest")) {
        ingest.add(f);
      }
    }
    StringBuilder md = new StringBuilder();
    md.append(BEGIN).append("\n## 5. Paimon 1.3.1 with Lockstep's Paimon plugins (issue 24)\n\n");
    md.append("Measured ")
        .append(Instant.now())
        .append(
            " in one run (`benchmarks/run-paimon`): "
                + "Apache Paimon 1.3.1 through its Java API (a filesystem catalog, one `StreamWriteBuilder`"
                + " and commit user per committer, as a Flink sink uses it), each configuration in its own"
                + " JVM, all against one s3proxy 4.0.0 (in-memory `transient-nio2`) and one ZooKeeper"
                + " (curator-test) in a server JVM, and the machine's MariaDB. The Paimon JVMs' class"
                + " paths are what a user installs: Paimon, the Hadoop client and either"
                + " `lockstep-fs-s3-bundle` (Lockstep's s3 FileIO, no `paimon-s3`) or `paimon-s3` 1.3.1"
                + " with `lockstep-lock-zookeeper-bundle` / `lockstep-lock-jdbc-bundle`. Reported, never"
                + " asserted. Load average at the end (1/5/15 min): ")
        .append(loadAverage())
        .append(" on ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores.\n\n");
    if (a.containsKey("note")) {
      md.append(a.get("note")).append("\n\n");
    }
    md.append("Sizes: ").append(a.getOrDefault("sizes", "")).append("\n\n");
    md.append("Commands:\n\n```\n").append(a.getOrDefault("command", "")).append("\n```\n\n");

    md.append(
        "**Commit throughput.** An append table (`bucket = -1`, `write-only`), K committers"
            + " each committing 10 rows as fast as it can; latency is one commit call (prepare +"
            + " commit). *rows expected* = every acknowledged commit (warm-up included) x 10;"
            + " a commit Paimon gives up after `commit.max-retries` (default 10) conflicts is"
            + " counted apart and the committer goes on;"
            + " *rows in table* is the scan afterwards (a lost commit would show as fewer).\n\n");
    md.append(
        "| configuration | committers | commits/s | p50 ms | p99 ms | max ms | commits measured"
            + " | rows expected | rows in table | commits Paimon gave up |\n"
            + "|---|---|---|---|---|---|---|---|---|---|\n");
    Map<String, Double> rate = new LinkedHashMap<>();
    for (String[] f : commits) {
      md.append("| ")
          .append(label(f[1]))
          .append(" | ")
          .append(f[2])
          .append(" | ")
          .append(f[3])
          .append(" | ")
          .append(f[4])
          .append(" | ")
          .append(f[5])
          .append(" | ")
          .append(f[6])
          .append(" | ")
          .append(f[7])
          .append(" | ")
          .append(f[8])
          .append(" | ")
          .append(f[9])
          .append(" | ")
          .append(f.length > 10 ? f[10] : "0 (none seen; not counted in this run)")
          .append(" |\n");
      rate.put(f[1] + "@" + f[2], Double.parseDouble(f[3]));
    }
    md.append(
        "\n| committers | lock-free / lockstep-zookeeper | lock-free / lockstep-jdbc |"
            + "\n|---|---|---|\n");
    for (String k : new String[] {"1", "4", "8"}) {
      Double free = rate.get("lockstep-s3@" + k);
      md.append("| ")
          .append(k)
          .append(" | ")
          .append(ratio(free, rate.get("paimon-s3+lockstep-zookeeper@" + k)))
          .append(" | ")
          .append(ratio(free, rate.get("paimon-s3+lockstep-jdbc@" + k)))
          .append(" |\n");
    }
    Double free8 = rate.get("lockstep-s3@8");
    md.append("\nGoal: the lock-free path >= 2x the locked paths' commits/s at 8 committers: ")
        .append(goal(free8, rate.get("paimon-s3+lockstep-zookeeper@8"), 2.0))
        .append(" against lockstep-zookeeper, ")
        .append(goal(free8, rate.get("paimon-s3+lockstep-jdbc@8"), 2.0))
        .append(" against lockstep-jdbc.\n\n");

    md.append(
        "**Data path.** One writer, the rows (`k BIGINT, v BIGINT, s STRING` of 32"
            + " characters) into an append table, Paimon's default Parquet, a commit every"
            + " `commit-every` rows; then full scans of the table one after another in the same JVM"
            + " (*scan* is their median, *each scan* lists them in order, the first one cold). No lock"
            + " in either. The systems run in rounds, each round both of them, each in a fresh JVM"
            + " on its own table, in alternating order (round 1 Lockstep first, round 2 paimon-s3"
            + " first, ...), so that neither always meets the server JVM colder or the machine"
            + " busier.\n\n");
    md.append(
        "| round | FileIO | rows | ingest rows/s | scan rows/s | ingest s | scan s | each scan s |\n"
            + "|---|---|---|---|---|---|---|---|\n");
    Map<String, DataPath> bySystem = new LinkedHashMap<>();
    Map<String, Map<String, String[]>> byRound = new LinkedHashMap<>();
    for (String[] f : ingest) {
      String round = f.length > 8 ? f[8] : "1";
      md.append("| ")
          .append(round)
          .append(" | ")
          .append(label(f[1]))
          .append(" | ")
          .append(f[2])
          .append(" | ")
          .append(f[3])
          .append(" | ")
          .append(f[4])
          .append(" | ")
          .append(f[5])
          .append(" | ")
          .append(f[6])
          .append(" | ")
          .append(f.length > 7 ? f[7] : f[6])
          .append(" |\n");
      bySystem.computeIfAbsent(f[1], k -> new DataPath()).add(f);
      byRound.computeIfAbsent(round, k -> new LinkedHashMap<>()).put(f[1], f);
    }
    DataPath ours = bySystem.get("lockstep-s3");
    DataPath theirs = bySystem.get("paimon-s3");
    if (ours != null && theirs != null) {
      md.append(
              "\n| round | ingest: Lockstep / paimon-s3 | scan (median): Lockstep / paimon-s3 |\n")
          .append("|---|---|---|\n");
      for (Map.Entry<String, Map<String, String[]>> r : byRound.entrySet()) {
        String[] o = r.getValue().get("lockstep-s3");
        String[] t = r.getValue().get("paimon-s3");
        if (o != null && t != null) {
          md.append("| ")
              .append(r.getKey())
              .append(" | ")
              .append(ratio(Double.parseDouble(o[3]), Double.parseDouble(t[3])))
              .append(" | ")
              .append(ratio(Double.parseDouble(o[4]), Double.parseDouble(t[4])))
              .append(" |\n");
        }
      }
      double in = theirs.ingestSeconds / theirs.rows / (ours.ingestSeconds / ours.rows);
      double scan = median(theirs.warmScans) / median(ours.warmScans);
      md.append(
          String.format(
              Locale.ROOT,
              "%nOver all rounds, Lockstep's s3 FileIO / paimon-s3: ingest %.2fx (rows/s of all"
                  + " ingests together), scan %.2fx (median of every warm scan, %d of Lockstep's"
                  + " and %d of paimon-s3's; the first scan of each JVM is cold and left out:"
                  + " cold first scans %.2fx). Goal >= 1.0x both: %s.%n",
              in,
              scan,
              ours.warmScans.size(),
              theirs.warmScans.size(),
              median(theirs.coldScans) / median(ours.coldScans),
              in >= 1.0 && scan >= 1.0 ? "met" : "not met"));
    }
    md.append(END).append("\n");

    Args.replaceSection(Paths.get(Args.required(a, "markdown")), BEGIN, END, md.toString());
    System.out.print(md);
  }

  /** One system's data-path results over every round. */
  private static final class DataPath {
    long rows;
    double ingestSeconds;
    final List<Double> warmScans = new ArrayList<>();
    final List<Double> coldScans = new ArrayList<>();

    void add(String[] f) {
      rows += Long.parseLong(f[2]);
      ingestSeconds += Double.parseDouble(f[5]);
      String[] each = (f.length > 7 ? f[7] : f[6]).trim().split(" ");
      for (int i = 0; i < each.length; i++) {
        (i == 0 ? coldScans : warmScans).add(Double.parseDouble(each[i]));
      }
    }
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    java.util.Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String label(String system) {
    switch (system) {
      case "lockstep-s3":
        return "Lockstep s3 FileIO, lock-free";
      case "paimon-s3":
        return "paimon-s3";
      case "paimon-s3+lockstep-zookeeper":
        return "paimon-s3 + lockstep-zookeeper";
      case "paimon-s3+lockstep-jdbc":
        return "paimon-s3 + lockstep-jdbc (MariaDB)";
      default:
        return system;
    }
  }

  private static String ratio(Double a, Double b) {
    return a == null || b == null || b == 0 ? "n/a" : String.format(Locale.ROOT, "%.2fx", a / b);
  }

  private static String goal(Double a, Double b, double target) {
    if (a == null || b == null || b == 0) {
      return "not measured";
    }
    return String.format(Locale.ROOT, "%.2fx, %s", a / b, a / b >= target ? "met" : "not met");
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Paths.get("/proc/loadavg")).split(" ");
      return f[0] + " / " + f[1] + " / " + f[2];
    } catch (Exception e) {
      return String.format(
          Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }
}
