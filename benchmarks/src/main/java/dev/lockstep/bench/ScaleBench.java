package dev.lockstep.bench;

import dev.lockstep.bench.report.ScalePlot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Issue 20's scaling benchmarks, Lockstep and Apache Paimon 1.3.1 side by side in one run (both on
 * their defaults for new tables, Parquet with zstd, unless {@code -Dlockstep.bench.file-format}
 * says otherwise), local warehouse, append tables. Reported, never asserted.
 *
 * <ol>
 *   <li><b>Commit throughput under contention</b>: K committers on one table (write-only, 10 rows
 *       per commit), commits/s and retries per commit at each K, the systems alternating within
 *       each round ({@link Workloads#contention}). Every K is warmed up first; the rounds run the K
 *       ascending, then descending, and so on; the section reports per K the median of the rounds,
 *       the process CPU and the committer threads' CPU per landed commit, and attempts per commit.
 *       A run that fails, or whose table cannot be read back, is a result row, not the end of the
 *       benchmark. {@code -Dlockstep.bench.count-store=true} also prints Lockstep's store calls per
 *       landed commit by operation and kind of file.
 *   <li><b>Metadata scaling with history</b>: one committer, one file per commit; when the table
 *       reaches each snapshot count, the latency of the next {@code --latency-commits} commits
 *       (p50, p99) and the time to plan a full scan through a fresh table object (median of {@code
 *       --plans}).
 *   <li><b>Metadata scaling with live files</b>: 100 buckets, commits of about 100 new files each
 *       (5,000 rows); plan time (median of {@code --plans}) at each live-file count.
 * </ol>
 *
 * Writes {@code scale-section.md} (the RESULTS.md section) and {@code scale-contention.svg}, {@code
 * scale-metadata.svg} into {@code --out}.
 *
 * <pre>
 * ScaleBench [--out DIR] [--committers 1,2,4,8,16] [--seconds 4] [--warmup-seconds 1] [--rounds 2]
 *            [--snapshots 100,1000,10000] [--latency-commits 50] [--history-warmup-commits 0]
 *            [--files 1000,10000,100000] [--plans 3] [--work DIR] [--command TEXT]
 *            [--paimon-snapshots LIST] [--paimon-files LIST] (per system: smaller sizes for one)
 *            [--systems lockstep,paimon] [--parts contention,history,files] (a subset of each)
 * </pre>
 */
public final class ScaleBench {

  private static final int CONTENTION_ROWS_PER_COMMIT = 10;
  private static final int FILE_BUCKETS = 100;
  private static final int ROWS_PER_FILE_COMMIT = 5000;

  private ScaleBench() {}

  /** One system's contention result at one K. */
  record ContentionPoint(
      String system, int k, Workloads.Contention pooled, List<Workloads.ContentionRun> runs) {

    /** The median of the rounds' commits/s. */
    double medianCommitsPerSecond() {
      return median(runs.stream().mapToDouble(Workloads.ContentionRun::commitsPerSecond));
    }

    /** The median of the rounds' process CPU per landed commit, ms. */
    double medianProcessCpuMillis() {
      return median(runs.stream().mapToDouble(Workloads.ContentionRun::processCpuMillisPerCommit));
    }

    /** The median of the rounds' committer-thread CPU per landed commit, ms. */
    double medianCommitterCpuMillis() {
      return median(
          runs.stream().mapToDouble(Workloads.ContentionRun::committerCpuMillisPerCommit));
    }

    /** The first read-back failure of the rounds, or {@code null}. */
    String readBackError() {
      return runs.stream()
          .map(Workloads.ContentionRun::readBackError)
          .filter(java.util.Objects::nonNull)
          .findFirst()
          .orElse(null);
    }
  }

  /** The median of {@code values} without NaN (NaN when none is left). */
  static double median(java.util.stream.DoubleStream values) {
    double[] v = values.filter(d -> !Double.isNaN(d)).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** The K of round {@code round}: ascending in even rounds, descending in odd ones. */
  static int[] roundOrder(int[] committers, int round) {
    int[] order = committers.clone();
    if (round % 2 == 1) {
      for (int i = 0; i < order.length / 2; i++) {
        int t = order[i];
        order[i] = order[order.length - 1 - i];
        order[order.length - 1 - i] = t;
      }
    }
    return order;
  }

  /** One contention run; a failure of the whole run is recorded as a failed run, not thrown. */
  private static Workloads.ContentionRun contentionRun(
      BenchSystem system, int k, Duration duration, Path work) {
    try {
      return Workloads.contention(
          system, TableSpec.append(1, true), k, CONTENTION_ROWS_PER_COMMIT, duration, work);
    } catch (Exception e) {
      String error = String.valueOf(e).split("\n")[0];
      System.err.println(system.name() + " K=" + k + " run failed: " + error);
      return Workloads.ContentionRun.failed(error);
    }
  }

  /** One system's metadata point: at {@code size} snapshots or live files. */
  record MetadataPoint(
      String system,
      String axis,
      long size,
      double p50Millis,
      double p99Millis,
      double planMillis,
      String breakdown) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = parse(args);
    Path out = Files.createDirectories(Path.of(a.getOrDefault("out", "benchmarks")));
    Path work =
        Path.of(a.getOrDefault("work", System.getProperty("java.io.tmpdir")))
            .resolve("lockstep-scale-" + System.currentTimeMillis());
    List<BenchSystem> systems = new ArrayList<>();
    for (String name : a.getOrDefault("systems", "lockstep,paimon").split(",")) {
      systems.add(SideBySide.system(name.trim()));
    }
    int[] committers = ints(a.getOrDefault("committers", "1,2,4,8,16"));
    Duration seconds = Duration.ofSeconds(Long.parseLong(a.getOrDefault("seconds", "4")));
    Duration warmup = Duration.ofSeconds(Long.parseLong(a.getOrDefault("warmup-seconds", "1")));
    int rounds = Integer.parseInt(a.getOrDefault("rounds", "2"));
    int[] snapshots = ints(a.getOrDefault("snapshots", "100,1000,10000"));
    int latencyCommits = Integer.parseInt(a.getOrDefault("latency-commits", "50"));
    int historyWarmup = Integer.parseInt(a.getOrDefault("history-warmup-commits", "0"));
    int[] files = ints(a.getOrDefault("files", "1000,10000,100000"));
    int plans = Integer.parseInt(a.getOrDefault("plans", "3"));
    java.util.Set<String> parts =
        java.util.Set.of(a.getOrDefault("parts", "contention,history,files").split(","));
    if (!parts.contains("contention")) {
      committers = new int[0];
    }
    long t0 = System.nanoTime();

    // 1. Contention. Every K is warmed up first (each system, --warmup-seconds each); then the
    // rounds run the K in ascending order in even rounds and descending in odd ones, so that no K
    // always runs first (on a cold JIT) or last. A run that fails as a whole, or whose table
    // cannot be read back, is recorded and the benchmark goes on.
    Map<String, List<Workloads.ContentionRun>> runs = new LinkedHashMap<>();
    int config = 0;
    if (!warmup.isZero()) {
      for (int k : committers) {
        for (BenchSystem system : systems) {
          Workloads.ContentionRun w =
              contentionRun(system, k, warmup, work.resolve("warmup-" + config++));
          System.out.printf(
              Locale.ROOT,
              "warm-up %s K=%d: %.1f commits/s%s%n",
              system.name(),
              k,
              w.commitsPerSecond(),
              w.readBackError() == null ? "" : " (read-back failed: " + w.readBackError() + ")");
        }
      }
    }
    for (int round = 0; round < rounds; round++) {
      for (int k : roundOrder(committers, round)) {
        List<BenchSystem> order = new ArrayList<>(systems);
        if ((round + k) % 2 == 1) {
          java.util.Collections.reverse(order);
        }
        for (BenchSystem system : order) {
          System.gc();
          Workloads.ContentionRun run =
              contentionRun(system, k, seconds, work.resolve("contention-" + config++));
          runs.computeIfAbsent(system.name() + "/" + k, x -> new ArrayList<>()).add(run);
          System.out.printf(
              Locale.ROOT,
              "contention %s K=%d round %d: %.1f commits/s, %.2f retries/commit, %.3f ms process"
                  + " CPU/commit, %.3f ms committer CPU/commit, load %.2f%s%n",
              system.name(),
              k,
              round + 1,
              run.commitsPerSecond(),
              run.commits() == 0 ? 0.0 : (double) run.retries() / run.commits(),
              run.processCpuMillisPerCommit(),
              run.committerCpuMillisPerCommit(),
              loadAverage()[0],
              run.readBackError() == null ? "" : ", read-back failed: " + run.readBackError());
        }
      }
    }
    List<ContentionPoint> contention = new ArrayList<>();
    for (int k : committers) {
      for (BenchSystem system : systems) {
        List<Workloads.ContentionRun> r = runs.get(system.name() + "/" + k);
        contention.add(
            new ContentionPoint(
                system.name(), k, Workloads.Contention.pool(system.name(), "append", k, r), r));
      }
    }

    // 2. History, 3. live files.
    List<MetadataPoint> metadata = new ArrayList<>();
    for (BenchSystem system : systems) {
      // --<system>-snapshots / --<system>-files: smaller sizes for one system when time is short.
      int[] s = ints(a.getOrDefault(system.name() + "-snapshots", join(snapshots)));
      int[] f = ints(a.getOrDefault(system.name() + "-files", join(files)));
      if (parts.contains("history")) {
        metadata.addAll(
            history(system, s, latencyCommits, historyWarmup, plans, work.resolve("history")));
      }
      if (parts.contains("files")) {
        metadata.addAll(liveFiles(system, f, plans, work.resolve("files")));
      }
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    deleteTree(work);

    Files.writeString(
        out.resolve("scale-contention.svg"),
        ScalePlot.svg(
            "Commits/s against committers on one append table (local store)",
            "committers (K)",
            "commits/s",
            series(contention, true),
            false));
    Map<String, Map<Long, Double>> plot = new LinkedHashMap<>();
    for (MetadataPoint p : metadata) {
      String label =
          p.system()
              + (p.axis().equals("snapshots") ? " plan, by snapshots" : " plan, by live files");
      plot.computeIfAbsent(label, x -> new LinkedHashMap<>()).put(p.size(), p.planMillis());
      if (p.axis().equals("snapshots")) {
        plot.computeIfAbsent(p.system() + " commit p99", x -> new LinkedHashMap<>())
            .put(p.size(), p.p99Millis());
      }
    }
    Files.writeString(
        out.resolve("scale-metadata.svg"),
        ScalePlot.svg(
            "Plan time and commit p99 against table size (local store)",
            "snapshots / live files",
            "ms (log)",
            plot,
            true));
    Files.writeString(
        out.resolve("scale-section.md"),
        section(contention, metadata, committers, a.getOrDefault("command", ""), elapsed));
    System.out.println(Files.readString(out.resolve("scale-section.md")));
  }

  private static Map<String, Map<Long, Double>> series(List<ContentionPoint> points, boolean rate) {
    Map<String, Map<Long, Double>> series = new LinkedHashMap<>();
    for (ContentionPoint p : points) {
      series
          .computeIfAbsent(p.system(), x -> new LinkedHashMap<>())
          .put((long) p.k(), rate ? p.medianCommitsPerSecond() : p.pooled().retriesPerCommit());
    }
    return series;
  }

  /**
   * One committer, one file per commit; measured at each snapshot count. With {@code warmup} > 0,
   * that many commits first go to a scratch table of the same kind (deleted afterwards), so that
   * the first point is not the JVM's warm-up.
   */
  static List<MetadataPoint> history(
      BenchSystem system, int[] snapshots, int latencyCommits, int warmup, int plans, Path work)
      throws Exception {
    List<MetadataPoint> points = new ArrayList<>();
    Files.createDirectories(work);
    SplittableRandom random = new SplittableRandom(20);
    if (warmup > 0) {
      Path scratch = Files.createTempDirectory(work, system.name() + "-warmup");
      try (BenchTable table = system.createTable(scratch, TableSpec.append(1, true));
          BenchWriter writer = table.newWriter("warmup")) {
        for (int i = 1; i <= warmup; i++) {
          writer.write(random.nextInt(1_000_000), random.nextLong(), "x");
          writer.commit(i);
        }
        table.planFiles();
      } finally {
        deleteTree(scratch);
      }
      System.out.printf(
          Locale.ROOT, "history %s: %d warm-up commits done%n", system.name(), warmup);
    }
    Path dir = Files.createTempDirectory(work, system.name());
    try (BenchTable table = system.createTable(dir, TableSpec.append(1, true));
        BenchWriter writer = table.newWriter("history")) {
      long identifier = 0;
      for (int target : snapshots) {
        while (identifier < target) {
          writer.write(random.nextInt(1_000_000), random.nextLong(), "x");
          writer.commit(++identifier);
        }
        double plan = medianPlanMillis(table, plans);
        // Each measured commit's wall time, CPU time and what it did (CommitBreakdown).
        CommitBreakdown breakdown = new CommitBreakdown(table);
        for (int i = 0; i < latencyCommits; i++) {
          writer.write(random.nextInt(1_000_000), random.nextLong(), "x");
          breakdown.begin();
          writer.commit(++identifier);
          breakdown.end();
        }
        MetadataPoint p =
            new MetadataPoint(
                system.name(),
                "snapshots",
                target,
                breakdown.wallPercentileMillis(50),
                breakdown.wallPercentileMillis(99),
                plan,
                breakdown.summary());
        System.out.printf(
            Locale.ROOT,
            "history %s at %d snapshots: commit p50 %.1f ms, p99 %.1f ms, plan %.1f ms%n%s",
            p.system(),
            p.size(),
            p.p50Millis(),
            p.p99Millis(),
            p.planMillis(),
            p.breakdown());
        points.add(p);
      }
    } finally {
      deleteTree(dir);
    }
    return points;
  }

  /** 100 buckets, about 100 new files per commit; plan time at each live-file count. */
  static List<MetadataPoint> liveFiles(BenchSystem system, int[] files, int plans, Path work)
      throws Exception {
    List<MetadataPoint> points = new ArrayList<>();
    Files.createDirectories(work);
    Path dir = Files.createTempDirectory(work, system.name());
    SplittableRandom random = new SplittableRandom(21);
    try (BenchTable table = system.createTable(dir, TableSpec.append(FILE_BUCKETS, true));
        BenchWriter writer = table.newWriter("files")) {
      long identifier = 0;
      long live = 0;
      for (int target : files) {
        while (live < target) {
          for (int r = 0; r < ROWS_PER_FILE_COMMIT; r++) {
            writer.write(random.nextInt(1_000_000), random.nextLong(), "x");
          }
          writer.commit(++identifier);
          live = identifier * FILE_BUCKETS; // refined by the plan below
          if (live >= target) {
            live = table.planFiles();
          }
        }
        double plan = medianPlanMillis(table, plans);
        MetadataPoint p = new MetadataPoint(system.name(), "files", live, 0, 0, plan, "");
        System.out.printf(
            Locale.ROOT,
            "files %s at %d live files (%d commits): plan %.1f ms%n",
            p.system(),
            live,
            identifier,
            plan);
        points.add(p);
      }
    } finally {
      deleteTree(dir);
    }
    return points;
  }

  private static double medianPlanMillis(BenchTable table, int plans) throws Exception {
    double[] times = new double[plans];
    for (int i = 0; i < plans; i++) {
      long t = System.nanoTime();
      table.planFiles();
      times[i] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(times);
    return times[plans / 2];
  }

  static String section(
      List<ContentionPoint> contention,
      List<MetadataPoint> metadata,
      int[] committers,
      String command,
      double elapsedSeconds) {
    StringBuilder md = new StringBuilder();
    md.append("<!-- scale:begin -->\n");
    md.append("## 11. Commit contention and metadata scaling (issue 20)\n\n");
    double[] load = loadAverage();
    md.append(
        String.format(
            Locale.ROOT,
            "Measured %s, Lockstep %s and Apache Paimon %s in one JVM run, data files %s (%s),"
                + " append tables on the local store; load average at the end %.2f / %.2f / %.2f"
                + " (1/5/15 min) on %d cores shared with other jobs; run time %.0f s. Reported,"
                + " never asserted.\n\n",
            java.time.Instant.now(),
            "0.1.0-SNAPSHOT",
            "1.3.1",
            TableSpec.FILE_FORMAT,
            TableSpec.FILE_COMPRESSION,
            load[0],
            load[1],
            load[2],
            Runtime.getRuntime().availableProcessors(),
            elapsedSeconds));
    if (!command.isEmpty()) {
      md.append("```\n").append(command).append("\n```\n\n");
    }
    md.append("### Commit throughput under contention\n\n");
    md.append(
        "K committers on one append table (write-only, 10 rows per commit), each its own commit"
            + " user, as fast as they can; rounds pooled. Goal: Lockstep's commits/s at K = 8 at"
            + " least its K = 1 and at least 3x Paimon's at K = 8.\n\n");
    md.append(
        "| system | K | commits | commits/s | vs K = 1 | p50 ms | p99 ms | retries/commit | gave up"
            + " | failed | rows read / expected |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    Map<String, Double> atOne = new LinkedHashMap<>();
    for (ContentionPoint p : contention) {
      if (p.k() == committers[0]) {
        atOne.put(p.system(), p.pooled().commitsPerSecond());
      }
    }
    for (ContentionPoint p : contention) {
      Workloads.Contention c = p.pooled();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %.1f | %.2fx | %.1f | %.1f | %.2f | %d | %d | %d / %d |\n",
              p.system(),
              p.k(),
              c.commits(),
              c.commitsPerSecond(),
              c.commitsPerSecond() / atOne.getOrDefault(p.system(), Double.NaN),
              c.p50Millis(),
              c.p99Millis(),
              c.retriesPerCommit(),
              c.gaveUp(),
              c.otherFailures(),
              c.rowsRead(),
              c.rowsExpected()));
    }
    md.append(
        "\nPer K, the median of the rounds (each K warmed up first; the rounds alternate the order"
            + " of K, ascending then descending), with the CPU each landed commit cost: process CPU"
            + " (every thread of the JVM: committers, GC, JIT) and the committer threads' own, each"
            + " the median over rounds; attempts per commit pooled; failed commits and read-back"
            + " per system and K over all rounds.\n\n");
    md.append(
        "| system | K | rounds | median commits/s | min .. max | median vs K = 1 | attempts/commit"
            + " | process CPU ms/commit | committer CPU ms/commit | failed commits | read-back |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    Map<String, Double> medianAtOne = new LinkedHashMap<>();
    for (ContentionPoint p : contention) {
      if (p.k() == committers[0]) {
        medianAtOne.put(p.system(), p.medianCommitsPerSecond());
      }
    }
    for (ContentionPoint p : contention) {
      Workloads.Contention c = p.pooled();
      double min =
          p.runs().stream()
              .mapToDouble(Workloads.ContentionRun::commitsPerSecond)
              .min()
              .orElse(Double.NaN);
      double max =
          p.runs().stream()
              .mapToDouble(Workloads.ContentionRun::commitsPerSecond)
              .max()
              .orElse(Double.NaN);
      String readBack =
          p.readBackError() != null
              ? "failed: " + p.readBackError().replace("|", "/")
              : c.rowsRead() == c.rowsExpected() ? "ok" : c.rowsRead() + " / " + c.rowsExpected();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %.1f | %.1f .. %.1f | %.2fx | %.2f | %.3f | %.3f | %d | %s |\n",
              p.system(),
              p.k(),
              p.runs().size(),
              p.medianCommitsPerSecond(),
              min,
              max,
              p.medianCommitsPerSecond() / medianAtOne.getOrDefault(p.system(), Double.NaN),
              c.commits() == 0 ? Double.NaN : 1 + c.retriesPerCommit(),
              p.medianProcessCpuMillis(),
              p.medianCommitterCpuMillis(),
              c.otherFailures(),
              readBack));
    }
    md.append("\n| K | lockstep / paimon commits/s (pooled) | (median) |\n|---|---|---|\n");
    for (int k : committers) {
      Double l = null;
      Double q = null;
      double lm = Double.NaN;
      double qm = Double.NaN;
      for (ContentionPoint p : contention) {
        if (p.k() == k && p.system().equals("lockstep")) {
          l = p.pooled().commitsPerSecond();
          lm = p.medianCommitsPerSecond();
        } else if (p.k() == k && p.system().equals("paimon")) {
          q = p.pooled().commitsPerSecond();
          qm = p.medianCommitsPerSecond();
        }
      }
      if (l != null && q != null) {
        md.append(String.format(Locale.ROOT, "| %d | %.2fx | %.2fx |\n", k, l / q, lm / qm));
      }
    }
    md.append("\n![commits/s against committers](scale-contention.svg)\n\n");
    md.append("### Metadata scaling\n\n");
    md.append(
        "History: one committer, one new file per commit; at each snapshot count the next commits'"
            + " latency and the time to plan a full scan through a fresh table object (no metadata"
            + " cached; median of the plans). Live files: 100 buckets, about 100 new files per"
            + " commit. Goals: Lockstep's commit latency at 10,000 snapshots within 1.5x of at 100;"
            + " planning 100,000 files in at most 1 s.\n\n");
    md.append("| system | snapshots | commit p50 ms | commit p99 ms | plan ms |\n");
    md.append("|---|---|---|---|---|\n");
    for (MetadataPoint p : metadata) {
      if (p.axis().equals("snapshots")) {
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %.1f | %.1f | %.1f |\n",
                p.system(),
                p.size(),
                p.p50Millis(),
                p.p99Millis(),
                p.planMillis()));
      }
    }
    for (MetadataPoint p : metadata) {
      if (p.axis().equals("snapshots") && !p.breakdown().isEmpty()) {
        md.append(String.format(Locale.ROOT, "%n- %s at %d snapshots:%n", p.system(), p.size()));
        md.append(p.breakdown());
      }
    }
    md.append("\n| system | live files | plan ms |\n|---|---|---|\n");
    for (MetadataPoint p : metadata) {
      if (p.axis().equals("files")) {
        md.append(
            String.format(
                Locale.ROOT, "| %s | %d | %.1f |\n", p.system(), p.size(), p.planMillis()));
      }
    }
    md.append("\n![plan time and commit latency against table size](scale-metadata.svg)\n");
    md.append("<!-- scale:end -->\n");
    return md.toString();
  }

  private static double[] loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return new double[] {
        Double.parseDouble(parts[0]), Double.parseDouble(parts[1]), Double.parseDouble(parts[2])
      };
    } catch (IOException | RuntimeException e) {
      double one =
          java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return new double[] {one, Double.NaN, Double.NaN};
    }
  }

  private static String join(int[] values) {
    return String.join(",", Arrays.stream(values).mapToObj(Integer::toString).toList());
  }

  private static int[] ints(String list) {
    return Arrays.stream(list.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "ScaleBench: expected --name value pairs, got '"
                + args[i]
                + "'; see the class javadoc for the arguments");
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
