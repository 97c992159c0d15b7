package dev.lockstep.bench.report;

import dev.lockstep.bench.TableSpec;
import dev.lockstep.bench.Workloads;
import dev.lockstep.bench.Workloads.Contention;
import dev.lockstep.bench.Workloads.FileConflicts;
import dev.lockstep.bench.Workloads.Ingest;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/** Writes {@code RESULTS.md}: machine, versions, commands, raw numbers, ratios and targets. */
public final class ResultsReport {

  private ResultsReport() {}

  /** Everything one run measured. */
  public record Run(
      String command,
      Map<String, String> versions,
      Map<String, Map<String, String>> settings,
      Map<String, String> sharedOptions,
      int rounds,
      Duration contentionTime,
      Duration warmupTime,
      List<Contention> contention,
      List<FileConflicts> conflicts,
      List<Ingest> ingest,
      double totalSeconds) {}

  public static String markdown(Run run, String appendPlot, String pkPlot) {
    StringBuilder md = new StringBuilder();
    md.append("# Benchmarks: Lockstep side by side with Apache Paimon\n\n");
    md.append("Measured ")
        .append(Instant.now())
        .append(
            " in one run on one machine; the two systems"
                + " alternate configuration by configuration. Numbers are what this run measured: targets are"
                + " reported, never asserted in tests. See README.md for what each workload measures.\n\n");
    md.append("## Machine\n\n");
    md.append("| what | value |\n|---|---|\n");
    md.append("| CPU | ").append(cpuModel()).append(" |\n");
    md.append("| cores | ").append(Runtime.getRuntime().availableProcessors()).append(" |\n");
    md.append("| memory | ").append(memory()).append(" |\n");
    md.append("| load average at the end (1/5/15 min) | ").append(loadAverage()).append(" |\n");
    md.append("| OS | ")
        .append(System.getProperty("os.name"))
        .append(' ')
        .append(System.getProperty("os.version"))
        .append(" |\n");
    md.append("| Java | ")
        .append(System.getProperty("java.vm.name"))
        .append(' ')
        .append(System.getProperty("java.version"))
        .append(" |\n");
    md.append("| JVM arguments | ")
        .append(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
        .append(" |\n");
    run.versions()
        .forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    md.append("\n## Command\n\n```\n").append(run.command()).append("\n```\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Side-by-side run time: %.0f s (workloads 1 to 3, warm-ups" + " included).%n%n",
            run.totalSeconds()));

    md.append("## Settings\n\n");
    md.append("Both systems get the same table options: ");
    List<String> shared = new ArrayList<>();
    new TreeMap<>(run.sharedOptions()).forEach((k, v) -> shared.add("`" + k + "=" + v + "`"));
    md.append(String.join(", ", shared))
        .append(
            ", plus the workload's `bucket`, `write-only` and"
                + " `num-sorted-run.compaction-trigger`. The rest stays at each system's defaults:\n\n");
    List<String> systems = new ArrayList<>(run.settings().keySet());
    md.append("| setting |");
    systems.forEach(n -> md.append(' ').append(n).append(" |"));
    md.append("\n|---|").append("---|".repeat(systems.size())).append('\n');
    TreeSet<String> keys = new TreeSet<>();
    run.settings().values().forEach(m -> keys.addAll(m.keySet()));
    for (String key : keys) {
      md.append("| ").append(key).append(" |");
      for (String n : systems) {
        md.append(' ').append(run.settings().get(n).getOrDefault(key, "-")).append(" |");
      }
      md.append('\n');
    }

    md.append("\n## 1. Commit contention\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "K committers, each its own commit user, write-only, 100"
                + " rows per commit, local store; %d round(s) of %d s per configuration, the two systems of"
                + " a configuration back to back, after one %d s warm-up run per configuration on a"
                + " throwaway table; pooled over the rounds (commits and seconds summed, percentiles over"
                + " every commit of every round). Latency is of the commit call (prepare + commit). *Gave up* counts the times"
                + " the system abandoned a commit after its retry budget (`commit.max-retries` snapshot"
                + " conflicts): the harness then commits the same files again under the same identifier, as"
                + " a job retrying its checkpoint would, and the commit's latency runs from its first"
                + " attempt to the one that landed. *Failed* counts commit calls that failed otherwise (or"
                + " were given up %d times); their files stay in the writer and go with its next commit."
                + " *Rows read / expected* checks the table after the run: rows of every landed commit"
                + " (append) or distinct keys of every landed commit (primary key).%n%n",
            run.rounds(),
            run.contentionTime().toSeconds(),
            run.warmupTime().toSeconds(),
            Workloads.MAX_RECOMMITS));
    md.append(
        "| system | table | K | commits | commits/s | per round | p50 ms | p99 ms | max ms |"
            + " retries/commit | gave up | failed | snapshots | rows read / expected |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Contention c : run.contention()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d | %d | %.1f | %s | %.1f | %.1f | %.1f | %.2f | %s | %s | %d | %s |%n",
              c.system(),
              c.table(),
              c.committers(),
              c.commits(),
              c.commitsPerSecond(),
              join(c.perRoundCommitsPerSecond(), "%.1f"),
              c.p50Millis(),
              c.p99Millis(),
              c.maxMillis(),
              c.retriesPerCommit(),
              bold(c.gaveUp()),
              bold(c.otherFailures()),
              c.snapshots(),
              rowCheck(c.rowsRead(), c.rowsExpected())));
    }
    md.append(
        "\nRatios, lockstep / paimon for commits/s and paimon / lockstep for p99 (higher is"
            + " better for lockstep in both). *Per round* shows the same ratio for each round alone;"
            + " the spread between rounds is this run's own measure of its noise.\n\n");
    md.append(
        "| table | K | commits/s ratio | per round | p99 ratio | per round |\n"
            + "|---|---|---|---|---|---|\n");
    for (Contention l : run.contention()) {
      if (!l.system().equals("lockstep")) {
        continue;
      }
      find(
              run.contention(),
              c ->
                  c.system().equals("paimon")
                      && c.table().equals(l.table())
                      && c.committers() == l.committers())
          .ifPresent(
              p ->
                  md.append(
                      String.format(
                          Locale.ROOT,
                          "| %s | %d | %.2fx | %s | %.2fx | %s |%n",
                          l.table(),
                          l.committers(),
                          l.commitsPerSecond() / p.commitsPerSecond(),
                          ratios(l.perRoundCommitsPerSecond(), p.perRoundCommitsPerSecond()),
                          p.p99Millis() / l.p99Millis(),
                          ratios(p.perRoundP99Millis(), l.perRoundP99Millis()))));
    }
    if (appendPlot != null) {
      md.append("\n![commit latency percentiles against writer count, append table](")
          .append(appendPlot)
          .append(")\n");
    }
    if (pkPlot != null) {
      md.append("\n![commit latency percentiles against writer count, primary-key table](")
          .append(pkPlot)
          .append(")\n");
    }

    md.append("\n## 2. File conflicts\n\n");
    md.append(
        "Two writers compacting one primary-key bucket (compaction trigger 2), 100 rows per"
            + " commit. A failed commit restarts its writer (a new writer, as a job restart would),"
            + " which replays its batch; the final table is checked key by key against the model of"
            + " what was committed.\n\n");
    md.append(
        "| system | seconds | commits | failed commits | failed % | of which file conflicts |"
            + " of which gave up | writer restarts | table correct | keys read / expected |\n"
            + "|---|---|---|---|---|---|---|---|---|---|\n");
    for (FileConflicts f : run.conflicts()) {
      long attempts = f.commits() + f.failedCommits();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %d | %s | %.1f%% | %d | %d | %s | %s | %d / %d |%n",
              f.system(),
              f.seconds(),
              f.commits(),
              bold(f.failedCommits()),
              attempts == 0 ? 0 : 100.0 * f.failedCommits() / attempts,
              f.fileConflicts(),
              f.gaveUp(),
              bold(f.restarts()),
              f.tableCorrect() ? "yes" : "**no**",
              f.keysRead(),
              f.keysExpected()));
    }

    md.append("\n## 3. Ingest\n\n");
    md.append(
        "One writer, int key + bigint value + 32-character string, primary-key table with 4"
            + " buckets, compaction on (trigger 5), a commit every "
            + (run.ingest().isEmpty()
                ? "?"
                : String.format(Locale.ROOT, "%,d", run.ingest().get(0).commitEvery()))
            + " rows, after an unrecorded warm-up ingest;"
            + " then one full scan of the latest snapshot.\n\n");
    md.append(
        "| system | rows | ingest s | rows/s | scan s | scan rows/s | rows read |\n"
            + "|---|---|---|---|---|---|---|\n");
    for (Ingest i : run.ingest()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %.1f | %.0f | %.2f | %.0f | %d |%n",
              i.system(),
              i.rows(),
              i.ingestSeconds(),
              i.rowsPerSecond(),
              i.scanSeconds(),
              i.scanRowsPerSecond(),
              i.rowsRead()));
    }
    Optional<Ingest> li = find(run.ingest(), i -> i.system().equals("lockstep"));
    Optional<Ingest> pi = find(run.ingest(), i -> i.system().equals("paimon"));
    if (li.isPresent() && pi.isPresent()) {
      md.append(
          String.format(
              Locale.ROOT,
              "%nIngest ratio %.2fx; scan ratio %.2fx (lockstep /" + " paimon rows/s).%n",
              li.get().rowsPerSecond() / pi.get().rowsPerSecond(),
              li.get().scanRowsPerSecond() / pi.get().scanRowsPerSecond()));
    }

    md.append(
        "\n## Targets\n\nFrom issue 12; measured and reported, never asserted.\n\n"
            + "| target | measured | met |\n|---|---|---|\n");
    Optional<Contention> l8 =
        find(
            run.contention(),
            c ->
                c.system().equals("lockstep")
                    && c.table().equals(TableSpec.APPEND_LABEL)
                    && c.committers() == 8);
    Optional<Contention> p8 =
        find(
            run.contention(),
            c ->
                c.system().equals("paimon")
                    && c.table().equals(TableSpec.APPEND_LABEL)
                    && c.committers() == 8);
    if (l8.isPresent() && p8.isPresent()) {
      double tput = l8.get().commitsPerSecond() / p8.get().commitsPerSecond();
      double p99 = l8.get().p99Millis() / p8.get().p99Millis();
      target(
          md,
          "K=8 append: commits/s at least 2x Paimon's",
          String.format(
              Locale.ROOT,
              "%.2fx (per round %s)",
              tput,
              ratios(l8.get().perRoundCommitsPerSecond(), p8.get().perRoundCommitsPerSecond())),
          tput >= 2);
      target(
          md,
          "K=8 append: p99 at most a quarter of Paimon's",
          String.format(
              Locale.ROOT,
              "%.2f of Paimon's (per round %s)",
              p99,
              ratios(l8.get().perRoundP99Millis(), p8.get().perRoundP99Millis())),
          p99 <= 0.25);
    }
    find(run.conflicts(), f -> f.system().equals("lockstep"))
        .ifPresent(
            f ->
                target(
                    md,
                    "File conflicts: zero failed commits and zero restarts, table correct",
                    f.failedCommits()
                        + " failed, "
                        + f.restarts()
                        + " restarts, correct="
                        + f.tableCorrect(),
                    f.failedCommits() == 0 && f.restarts() == 0 && f.tableCorrect()));
    if (li.isPresent() && pi.isPresent()) {
      double ingest = li.get().rowsPerSecond() / pi.get().rowsPerSecond();
      double scan = li.get().scanRowsPerSecond() / pi.get().scanRowsPerSecond();
      target(
          md,
          "Ingest at least 1.2x Paimon's rows/s",
          String.format(Locale.ROOT, "%.2fx", ingest),
          ingest >= 1.2);
      target(
          md,
          "Full scan no slower than Paimon's",
          String.format(Locale.ROOT, "%.2fx", scan),
          scan >= 1.0);
    }
    return md.toString();
  }

  private static String join(double[] values, String format) {
    List<String> parts = new ArrayList<>();
    for (double v : values) {
      parts.add(String.format(Locale.ROOT, format, v));
    }
    return String.join(", ", parts);
  }

  /** {@code a[i] / b[i]} for each round, as "1.23x, 1.31x". */
  private static String ratios(double[] a, double[] b) {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < Math.min(a.length, b.length); i++) {
      parts.add(b[i] == 0 ? "-" : String.format(Locale.ROOT, "%.2fx", a[i] / b[i]));
    }
    return String.join(", ", parts);
  }

  private static String rowCheck(long read, long expected) {
    String text = read + " / " + expected;
    return read == expected ? text : "**" + text + "**";
  }

  private static String bold(long n) {
    return n == 0 ? "0" : "**" + n + "**";
  }

  /** The machine's load average (1, 5, 15 min), or "unknown". */
  public static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " / " + parts[1] + " / " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static void target(StringBuilder md, String what, String measured, boolean met) {
    md.append("| ")
        .append(what)
        .append(" | ")
        .append(measured)
        .append(" | ")
        .append(met ? "yes" : "**no**")
        .append(" |\n");
  }

  private static <T> Optional<T> find(List<T> list, Predicate<T> p) {
    return list.stream().filter(p).findFirst();
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException ignored) {
      // Not Linux: fall through.
    }
    return System.getProperty("os.arch");
  }

  private static String memory() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal")) {
          long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
          return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
        }
      }
    } catch (IOException | NumberFormatException ignored) {
      // Not Linux: fall through.
    }
    return Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB max heap";
  }
}
