package dev.lockstep.bench;

import dev.lockstep.bench.Workloads.Contention;
import dev.lockstep.bench.Workloads.FileConflicts;
import dev.lockstep.bench.Workloads.Ingest;
import dev.lockstep.bench.lockstep.LockstepSystem;
import dev.lockstep.bench.paimon.PaimonSystem;
import dev.lockstep.bench.report.LatencyPlot;
import dev.lockstep.bench.report.Ratios;
import dev.lockstep.bench.report.ResultsReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs workloads 1 to 3 of issue 12 for every system, alternating which system goes first in each
 * configuration, and writes {@code RESULTS.md}, {@code commit-latency.svg} (append table) and
 * {@code commit-latency-pk.svg} (primary-key table).
 *
 * <p>Noise control: before its first measured run every configuration runs once unrecorded on a
 * throwaway table (warm-up), and every measured run starts after the previous tables are deleted
 * and a full GC. The contention configurations run {@code --rounds} short rounds rather than one
 * long run, the order of the systems flipping every configuration and every round, so that the two
 * systems of one configuration always run back to back and a change in the machine's load hits
 * both; the report pools the rounds and prints each round's numbers and ratios, so that the spread
 * shows. With {@code --previous}, the ratios of an earlier run ({@code ratios.csv}, written by
 * every run next to {@code RESULTS.md}) are set beside this run's.
 *
 * <pre>
 * SideBySide [--out DIR] [--systems lockstep,paimon] [--writers 1,2,4,8] [--rounds 8]
 *            [--contention-seconds 4] [--warmup-seconds 2] [--conflict-seconds 20]
 *            [--ingest-rows 2000000] [--commit-every 100000] [--warmup-rows 200000]
 *            [--work DIR] [--command TEXT] [--previous ratios.csv]
 * </pre>
 */
public final class SideBySide {

  private static final int ROWS_PER_COMMIT = 100;

  private SideBySide() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = parse(args);
    Path out = Path.of(a.getOrDefault("out", "benchmarks"));
    Path work =
        Path.of(a.getOrDefault("work", System.getProperty("java.io.tmpdir")))
            .resolve("lockstep-bench-" + System.currentTimeMillis());
    List<BenchSystem> systems = new ArrayList<>();
    for (String name : a.getOrDefault("systems", "lockstep,paimon").split(",")) {
      systems.add(system(name.trim()));
    }
    int[] writers =
        Arrays.stream(a.getOrDefault("writers", "1,2,4,8").split(","))
            .mapToInt(s -> Integer.parseInt(s.trim()))
            .toArray();
    int rounds = positive(a, "rounds", 8);
    Duration contentionTime = Duration.ofSeconds(positive(a, "contention-seconds", 4));
    Duration warmupTime =
        Duration.ofSeconds(Integer.parseInt(a.getOrDefault("warmup-seconds", "2")));
    Duration conflictTime = Duration.ofSeconds(positive(a, "conflict-seconds", 20));
    int ingestRows = positive(a, "ingest-rows", 2_000_000);
    int commitEvery = positive(a, "commit-every", 100_000);
    int warmupRows = Integer.parseInt(a.getOrDefault("warmup-rows", "200000"));

    long t0 = System.nanoTime();
    Map<String, List<Workloads.ContentionRun>> runs = new LinkedHashMap<>();
    int config = 0;
    for (int round = 0; round < rounds; round++) {
      for (int k : writers) {
        for (boolean pk : new boolean[] {false, true}) {
          TableSpec spec = pk ? TableSpec.primaryKey(4, true, 5) : TableSpec.append(4, true);
          // The configurations per round are even in number: adding the round flips the order.
          for (BenchSystem system : alternate(systems, config++ + round)) {
            String name = system.name() + "-" + k + (pk ? "-pk" : "-append");
            if (round == 0 && !warmupTime.isZero()) {
              Workloads.contention(
                  system, spec, k, ROWS_PER_COMMIT, warmupTime, work.resolve("warmup-" + name));
            }
            settle(work);
            Workloads.ContentionRun r =
                Workloads.contention(
                    system,
                    spec,
                    k,
                    ROWS_PER_COMMIT,
                    contentionTime,
                    work.resolve("contention-" + name + "-" + round));
            System.out.printf(
                Locale.ROOT,
                "round %d contention %-8s %-11s K=%d: %6.1f commits/s"
                    + " p50 %6.1f ms p99 %7.1f ms max %7.1f ms retries/commit %.2f gave up %d failed"
                    + " %d%n",
                round + 1,
                system.name(),
                pk ? "primary-key" : "append",
                k,
                r.commitsPerSecond(),
                r.latencies().percentileMillis(50),
                r.latencies().percentileMillis(99),
                r.latencies().maxMillis(),
                r.commits() == 0 ? 0 : (double) r.retries() / r.commits(),
                r.gaveUp(),
                r.otherFailures());
            runs.computeIfAbsent(
                    system.name()
                        + "|"
                        + (pk ? TableSpec.PK_LABEL : TableSpec.APPEND_LABEL)
                        + "|"
                        + k,
                    x -> new ArrayList<>())
                .add(r);
          }
        }
      }
    }
    List<Contention> contention = new ArrayList<>();
    for (Map.Entry<String, List<Workloads.ContentionRun>> e : runs.entrySet()) {
      String[] key = e.getKey().split("\\|");
      contention.add(Contention.pool(key[0], key[1], Integer.parseInt(key[2]), e.getValue()));
    }
    contention.sort(
        Comparator.comparing(Contention::table)
            .thenComparing(Contention::committers)
            .thenComparing(Contention::system));

    List<FileConflicts> conflicts = new ArrayList<>();
    for (BenchSystem system : alternate(systems, config++)) {
      if (!warmupTime.isZero()) {
        Workloads.fileConflicts(
            system, warmupTime, work.resolve("warmup-conflicts-" + system.name()));
      }
      settle(work);
      FileConflicts f =
          Workloads.fileConflicts(system, conflictTime, work.resolve("conflicts-" + system.name()));
      System.out.printf(
          Locale.ROOT,
          "conflicts  %-8s commits %d failed %d (file conflicts %d, gave"
              + " up %d) restarts %d correct %s%n",
          f.system(),
          f.commits(),
          f.failedCommits(),
          f.fileConflicts(),
          f.gaveUp(),
          f.restarts(),
          f.tableCorrect());
      conflicts.add(f);
    }
    List<Ingest> ingest = new ArrayList<>();
    for (BenchSystem system : alternate(systems, config++)) {
      if (warmupRows > 0) {
        Workloads.ingest(
            system,
            warmupRows,
            Math.min(commitEvery, warmupRows),
            work.resolve("warmup-ingest-" + system.name()));
      }
      settle(work);
      Ingest i =
          Workloads.ingest(
              system, ingestRows, commitEvery, work.resolve("ingest-" + system.name()));
      System.out.printf(
          Locale.ROOT,
          "ingest     %-8s %d rows in %.1f s (%.0f rows/s); scan %.2f s" + " (%.0f rows/s)%n",
          i.system(),
          i.rows(),
          i.ingestSeconds(),
          i.rowsPerSecond(),
          i.scanSeconds(),
          i.scanRowsPerSecond());
      ingest.add(i);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;

    Map<String, String> versions = new LinkedHashMap<>();
    Map<String, Map<String, String>> settings = new LinkedHashMap<>();
    for (BenchSystem system : systems) {
      versions.put(system.name(), system.version());
      settings.put(system.name(), system.settings());
    }
    String command = a.getOrDefault("command", "SideBySide " + String.join(" ", args));
    Files.createDirectories(out);
    Files.writeString(
        out.resolve("commit-latency.svg"),
        LatencyPlot.svg(
            "Commit latency, append table, write-only, local store",
            contention.stream().filter(c -> c.table().equals(TableSpec.APPEND_LABEL)).toList()));
    Files.writeString(
        out.resolve("commit-latency-pk.svg"),
        LatencyPlot.svg(
            "Commit latency, primary-key table (4 buckets), write-only, local store",
            contention.stream().filter(c -> c.table().equals(TableSpec.PK_LABEL)).toList()));
    String report =
        ResultsReport.markdown(
            new ResultsReport.Run(
                command,
                versions,
                settings,
                TableSpec.SHARED_OPTIONS,
                rounds,
                contentionTime,
                warmupTime,
                contention,
                conflicts,
                ingest,
                seconds),
            "commit-latency.svg",
            "commit-latency-pk.svg");
    Ratios ratios =
        Ratios.of(
            Instant.now() + ", load average " + ResultsReport.loadAverage(), contention, ingest);
    if (a.containsKey("previous")) {
      Path previous = Path.of(a.get("previous"));
      if (Files.isRegularFile(previous)) {
        report += ratios.compareWith(Ratios.read(previous));
      }
    }
    Files.writeString(out.resolve("RESULTS.md"), report);
    ratios.write(out.resolve("ratios.csv"));
    System.out.println(
        "Wrote "
            + out.resolve("RESULTS.md")
            + ", "
            + out.resolve("commit-latency.svg")
            + " and "
            + out.resolve("commit-latency-pk.svg"));
    deleteRecursively(work);
  }

  /** Deletes the previous runs' tables and collects garbage, so that no run pays for the last. */
  private static void settle(Path work) throws IOException, InterruptedException {
    deleteRecursively(work);
    System.gc();
    Thread.sleep(200);
  }

  private static int positive(Map<String, String> a, String key, int defaultValue) {
    int value = Integer.parseInt(a.getOrDefault(key, Integer.toString(defaultValue)));
    if (value < 1) {
      throw new IllegalArgumentException("--" + key + " must be at least 1: " + value);
    }
    return value;
  }

  static BenchSystem system(String name) {
    switch (name) {
      case "paimon":
        return new PaimonSystem();
      case "lockstep":
        return new LockstepSystem();
      case "lockstep-racing":
        // Lockstep with its in-process committers racing each other, as before stop 34's turns.
        return new LockstepSystem("lockstep-racing", Map.of("commit.in-process-turns", "false"));
      default:
        throw new IllegalArgumentException(
            "Unknown system '" + name + "'; known: lockstep, lockstep-racing, paimon");
    }
  }

  /** The systems in an order that alternates with {@code config}, so neither always runs first. */
  private static List<BenchSystem> alternate(List<BenchSystem> systems, int config) {
    List<BenchSystem> order = new ArrayList<>(systems);
    if (config % 2 == 1) {
      java.util.Collections.reverse(order);
    }
    return order;
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("Expected --name value pairs, got '" + args[i] + "'");
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
