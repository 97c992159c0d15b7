package dev.lockstep.bench.report;

import dev.lockstep.bench.Workloads.Contention;
import dev.lockstep.bench.Workloads.FileConflicts;
import dev.lockstep.bench.Workloads.Ingest;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/** Writes {@code RESULTS.md}: machine, versions, commands, raw numbers, ratios and targets. */
public final class ResultsReport {

  private ResultsReport() {}

  /** Everything one run measured. */
  public record Run(String command, Map<String, String> versions, List<Contention> contention,
      List<FileConflicts> conflicts, List<Ingest> ingest, double totalSeconds) {}

  public static String markdown(Run run, String plotFile) {
    StringBuilder md = new StringBuilder();
    md.append("# Benchmarks: Lockstep side by side with Apache Paimon\n\n");
    md.append("Measured ").append(Instant.now()).append(" in one run on one machine; the two systems"
        + " alternate configuration by configuration. Numbers are what this run measured: targets are"
        + " reported, never asserted in tests.\n\n");
    md.append("## Machine\n\n");
    md.append("| what | value |\n|---|---|\n");
    md.append("| CPU | ").append(cpuModel()).append(" |\n");
    md.append("| cores | ").append(Runtime.getRuntime().availableProcessors()).append(" |\n");
    md.append("| memory | ").append(memory()).append(" |\n");
    md.append("| OS | ").append(System.getProperty("os.name")).append(' ')
        .append(System.getProperty("os.version")).append(" |\n");
    md.append("| Java | ").append(System.getProperty("java.vm.name")).append(' ')
        .append(System.getProperty("java.version")).append(" |\n");
    md.append("| JVM arguments | ").append(String.join(" ",
        ManagementFactory.getRuntimeMXBean().getInputArguments())).append(" |\n");
    run.versions().forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v)
        .append(" |\n"));
    md.append("\n## Command\n\n```\n").append(run.command()).append("\n```\n\n");
    md.append(String.format(Locale.ROOT, "Total run time: %.0f s.%n%n", run.totalSeconds()));

    md.append("## 1. Commit contention\n\n");
    md.append("K committers, each its own commit user, write-only, 100 rows per commit, local store."
        + " Latency is of the commit call alone.\n\n");
    md.append("| system | table | K | commits | commits/s | p50 ms | p99 ms | max ms | retries/commit"
        + " | failed | snapshots | rows read / expected |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Contention c : run.contention()) {
      md.append(String.format(Locale.ROOT,
          "| %s | %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %d | %d | %s |%n", c.system(),
          c.table(), c.committers(), c.commits(), c.commitsPerSecond(), c.p50Millis(),
          c.p99Millis(), c.maxMillis(), c.retriesPerCommit(), c.failedCommits(), c.snapshots(),
          c.rowsExpected() < 0 ? c.rowsRead() + " / -" : c.rowsRead() + " / " + c.rowsExpected()));
    }
    md.append("\nRatios (lockstep / paimon for commits/s; paimon / lockstep for p99, so higher is"
        + " better for lockstep):\n\n");
    md.append("| table | K | commits/s ratio | p99 ratio |\n|---|---|---|---|\n");
    for (Contention l : run.contention()) {
      if (!l.system().equals("lockstep")) {
        continue;
      }
      find(run.contention(), c -> c.system().equals("paimon") && c.table().equals(l.table())
          && c.committers() == l.committers()).ifPresent(p -> md.append(String.format(Locale.ROOT,
              "| %s | %d | %.2fx | %.2fx |%n", l.table(), l.committers(),
              l.commitsPerSecond() / p.commitsPerSecond(), p.p99Millis() / l.p99Millis())));
    }
    if (plotFile != null) {
      md.append("\n![commit latency percentiles against writer count](").append(plotFile)
          .append(")\n");
    }

    md.append("\n## 2. File conflicts\n\n");
    md.append("Two writers compacting one primary-key bucket (compaction trigger 2). A failed commit"
        + " restarts its writer, which replays its batch, so the final table is checked against"
        + " the model of what was committed.\n\n");
    md.append("| system | seconds | commits | failed commits | failed % | writer restarts |"
        + " table correct | keys read / expected |\n|---|---|---|---|---|---|---|---|\n");
    for (FileConflicts f : run.conflicts()) {
      long attempts = f.commits() + f.failedCommits();
      md.append(String.format(Locale.ROOT, "| %s | %.0f | %d | %d | %.1f%% | %d | %s | %d / %d |%n",
          f.system(), f.seconds(), f.commits(), f.failedCommits(),
          attempts == 0 ? 0 : 100.0 * f.failedCommits() / attempts, f.restarts(),
          f.tableCorrect() ? "yes" : "**no**", f.keysRead(), f.keysExpected()));
    }

    md.append("\n## 3. Ingest\n\n");
    md.append("One writer, int key + bigint value + 32-character string, primary-key table with 4"
        + " buckets, compaction on, a commit every "
        + (run.ingest().isEmpty() ? "?" : String.format(Locale.ROOT, "%,d",
            run.ingest().get(0).commitEvery())) + " rows; then a full scan.\n\n");
    md.append("| system | rows | ingest s | rows/s | scan s | scan rows/s | rows read |\n"
        + "|---|---|---|---|---|---|---|\n");
    for (Ingest i : run.ingest()) {
      md.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %.0f | %.2f | %.0f | %d |%n",
          i.system(), i.rows(), i.ingestSeconds(), i.rowsPerSecond(), i.scanSeconds(),
          i.scanRowsPerSecond(), i.rowsRead()));
    }
    Optional<Ingest> li = find(run.ingest(), i -> i.system().equals("lockstep"));
    Optional<Ingest> pi = find(run.ingest(), i -> i.system().equals("paimon"));
    if (li.isPresent() && pi.isPresent()) {
      md.append(String.format(Locale.ROOT, "%nIngest ratio %.2fx; scan ratio %.2fx (lockstep /"
          + " paimon rows/s).%n", li.get().rowsPerSecond() / pi.get().rowsPerSecond(),
          li.get().scanRowsPerSecond() / pi.get().scanRowsPerSecond()));
    }

    md.append("\n## Targets\n\n| target | measured | met |\n|---|---|---|\n");
    Optional<Contention> l8 = find(run.contention(), c -> c.system().equals("lockstep")
        && c.table().equals("append") && c.committers() == 8);
    Optional<Contention> p8 = find(run.contention(), c -> c.system().equals("paimon")
        && c.table().equals("append") && c.committers() == 8);
    if (l8.isPresent() && p8.isPresent()) {
      double tput = l8.get().commitsPerSecond() / p8.get().commitsPerSecond();
      double p99 = l8.get().p99Millis() / p8.get().p99Millis();
      target(md, "K=8 append: commits/s at least 2x Paimon's", String.format(Locale.ROOT, "%.2fx",
          tput), tput >= 2);
      target(md, "K=8 append: p99 at most a quarter of Paimon's", String.format(Locale.ROOT,
          "%.2f of Paimon's", p99), p99 <= 0.25);
    }
    find(run.conflicts(), f -> f.system().equals("lockstep")).ifPresent(f -> target(md,
        "File conflicts: zero failed commits and zero restarts, table correct",
        f.failedCommits() + " failed, " + f.restarts() + " restarts, correct=" + f.tableCorrect(),
        f.failedCommits() == 0 && f.restarts() == 0 && f.tableCorrect()));
    if (li.isPresent() && pi.isPresent()) {
      double ingest = li.get().rowsPerSecond() / pi.get().rowsPerSecond();
      double scan = li.get().scanRowsPerSecond() / pi.get().scanRowsPerSecond();
      target(md, "Ingest at least 1.2x Paimon's rows/s", String.format(Locale.ROOT, "%.2fx", ingest),
          ingest >= 1.2);
      target(md, "Full scan no slower than Paimon's", String.format(Locale.ROOT, "%.2fx", scan),
          scan >= 1.0);
    }
    return md.toString();
  }

  private static void target(StringBuilder md, String what, String measured, boolean met) {
    md.append("| ").append(what).append(" | ").append(measured).append(" | ")
        .append(met ? "yes" : "**no**").append(" |\n");
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
