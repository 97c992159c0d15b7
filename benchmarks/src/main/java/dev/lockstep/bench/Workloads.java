package dev.lockstep.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The three side-by-side workloads of issue 12, written once against {@link BenchSystem}. */
public final class Workloads {

  /** Times a given-up commit is committed again before it counts as failed. */
  public static final int MAX_RECOMMITS = 10;

  private Workloads() {}

  /**
   * One measured run of the commit-contention workload.
   *
   * @param latencies of every successful commit call
   * @param retries snapshot-conflict retries summed over successful commits
   * @param gaveUp times the system gave up a commit after its retry budget ({@link
   *     FailureKind#RETRIES_EXHAUSTED}); each such commit was committed again with the same
   *     identifier, and counts as one commit (with its whole latency) once it landed
   * @param otherFailures commits that failed for any other reason, or gave up {@value
   *     #MAX_RECOMMITS} times; their files stay in the writer and go with its next commit
   * @param rowsExpected rows in landed commits (append table), or distinct keys in landed commits
   *     (primary-key table): what a full scan must read
   * @param processCpuNanos CPU time of the whole process (every thread: committers, GC, JIT) from
   *     the start to the end of the measured commits, the read-back excluded; -1 when unknown
   * @param committerCpuNanos CPU time of the committer threads alone over the same span; -1 when
   *     unknown
   * @param readBackError the read-back's failure ({@code rowsRead} is then -1), else {@code null}
   */
  public record ContentionRun(
      long commits,
      double seconds,
      LatencyRecorder latencies,
      long retries,
      long gaveUp,
      long otherFailures,
      long snapshots,
      long rowsRead,
      long rowsExpected,
      long processCpuNanos,
      long committerCpuNanos,
      String readBackError) {

    public ContentionRun(
        long commits,
        double seconds,
        LatencyRecorder latencies,
        long retries,
        long gaveUp,
        long otherFailures,
        long snapshots,
        long rowsRead,
        long rowsExpected) {
      this(
          commits,
          seconds,
          latencies,
          retries,
          gaveUp,
          otherFailures,
          snapshots,
          rowsRead,
          rowsExpected,
          -1,
          -1,
          null);
    }

    /** A run that failed as a whole (its table could not be set up or a committer crashed). */
    public static ContentionRun failed(String error) {
      return new ContentionRun(0, 0, new LatencyRecorder(), 0, 0, 0, 0, -1, 0, -1, -1, error);
    }

    public double commitsPerSecond() {
      return seconds <= 0 ? 0 : commits / seconds;
    }

    /** Snapshot attempts per landed commit: 1 + retries per commit (NaN without commits). */
    public double attemptsPerCommit() {
      return commits == 0 ? Double.NaN : 1 + (double) retries / commits;
    }

    /** Process CPU milliseconds per landed commit (NaN when unknown or without commits). */
    public double processCpuMillisPerCommit() {
      return commits == 0 || processCpuNanos < 0 ? Double.NaN : processCpuNanos / 1e6 / commits;
    }

    /** Committer-thread CPU milliseconds per landed commit (NaN when unknown). */
    public double committerCpuMillisPerCommit() {
      return commits == 0 || committerCpuNanos < 0 ? Double.NaN : committerCpuNanos / 1e6 / commits;
    }
  }

  /** CPU time of the whole process so far, or -1 when the JVM does not tell. */
  static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime();
    }
    return -1;
  }

  /** CPU time of the calling thread so far, or -1 when the JVM does not tell. */
  static long threadCpuNanos() {
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
  }

  /**
   * The commit-contention result of one system and configuration, pooled over rounds: commits and
   * seconds summed, latency percentiles over every commit of every round.
   *
   * @param perRoundCommitsPerSecond commits/s of each round, in round order
   * @param perRoundP99Millis p99 commit latency of each round, in round order
   */
  public record Contention(
      String system,
      String table,
      int committers,
      long commits,
      double seconds,
      double commitsPerSecond,
      double p50Millis,
      double p99Millis,
      double maxMillis,
      double retriesPerCommit,
      long gaveUp,
      long otherFailures,
      long snapshots,
      long rowsRead,
      long rowsExpected,
      double[] perRoundCommitsPerSecond,
      double[] perRoundP99Millis) {

    /** Pools the rounds of one system and configuration. */
    public static Contention pool(
        String system, String table, int committers, List<ContentionRun> rounds) {
      LatencyRecorder all = new LatencyRecorder();
      long commits = 0;
      double seconds = 0;
      long retries = 0;
      long gaveUp = 0;
      long other = 0;
      long snapshots = 0;
      long rowsRead = 0;
      long rowsExpected = 0;
      double[] perRoundRate = new double[rounds.size()];
      double[] perRoundP99 = new double[rounds.size()];
      for (int i = 0; i < rounds.size(); i++) {
        ContentionRun r = rounds.get(i);
        all.addAll(r.latencies());
        commits += r.commits();
        seconds += r.seconds();
        retries += r.retries();
        gaveUp += r.gaveUp();
        other += r.otherFailures();
        snapshots += r.snapshots();
        rowsRead = r.rowsRead() < 0 || rowsRead < 0 ? -1 : rowsRead + r.rowsRead();
        rowsExpected =
            r.rowsExpected() < 0 || rowsExpected < 0 ? -1 : rowsExpected + r.rowsExpected();
        perRoundRate[i] = r.commitsPerSecond();
        perRoundP99[i] = r.latencies().percentileMillis(99);
      }
      return new Contention(
          system,
          table,
          committers,
          commits,
          seconds,
          commits / seconds,
          all.percentileMillis(50),
          all.percentileMillis(99),
          all.maxMillis(),
          commits == 0 ? 0 : (double) retries / commits,
          gaveUp,
          other,
          snapshots,
          rowsRead,
          rowsExpected,
          perRoundRate,
          perRoundP99);
    }
  }

  /**
   * Result of the file-conflict workload.
   *
   * @param failedCommits every failed commit; {@code fileConflicts} and {@code gaveUp} are the
   *     parts of it the system reported as a file conflict or as its retry budget running out
   */
  public record FileConflicts(
      String system,
      double seconds,
      long commits,
      long failedCommits,
      long fileConflicts,
      long gaveUp,
      long restarts,
      boolean tableCorrect,
      int keysExpected,
      int keysRead) {}

  /** Result of the ingest workload. */
  public record Ingest(
      String system,
      long rows,
      int commitEvery,
      double ingestSeconds,
      double rowsPerSecond,
      double scanSeconds,
      double scanRowsPerSecond,
      long rowsRead) {}

  /**
   * K committers, each its own commit user, each committing {@code rowsPerCommit} rows per commit
   * as fast as it can for {@code duration}; latency is of the commit call alone (prepare + commit,
   * as a Flink sink's checkpoint does both).
   */
  public static ContentionRun contention(
      BenchSystem system,
      TableSpec spec,
      int committers,
      int rowsPerCommit,
      Duration duration,
      Path work)
      throws Exception {
    try (BenchTable table = system.createTable(Files.createDirectories(work), spec)) {
      CyclicBarrier start = new CyclicBarrier(committers);
      ExecutorService pool = Executors.newFixedThreadPool(committers);
      List<Future<long[]>> results = new ArrayList<>();
      List<LatencyRecorder> latencies = new ArrayList<>();
      // What landed, to check the table: row count (append) or distinct keys (primary key).
      List<Set<Integer>> committedKeys = new ArrayList<>();
      long[] startedAt = new long[2]; // wall nanos, process CPU nanos
      for (int c = 0; c < committers; c++) {
        LatencyRecorder recorder = new LatencyRecorder();
        latencies.add(recorder);
        Set<Integer> landedKeys = new HashSet<>();
        committedKeys.add(landedKeys);
        int seed = c;
        results.add(
            pool.submit(
                () -> {
                  long commits = 0;
                  long retries = 0;
                  long gaveUp = 0;
                  long other = 0;
                  long landedRows = 0;
                  // Rows written but not yet in a landed commit: a failed commit's files stay in
                  // its
                  // writer and go with the next commit.
                  long pendingRows = 0;
                  List<Integer> pendingKeys = new ArrayList<>();
                  SplittableRandom random = new SplittableRandom(seed);
                  long cpuAtStart;
                  try (BenchWriter writer = table.newWriter("committer-" + seed)) {
                    start.await();
                    cpuAtStart = threadCpuNanos();
                    synchronized (startedAt) {
                      if (startedAt[0] == 0) {
                        startedAt[0] = System.nanoTime();
                        startedAt[1] = processCpuNanos();
                      }
                    }
                    long deadline = System.nanoTime() + duration.toNanos();
                    long identifier = 0;
                    while (System.nanoTime() < deadline) {
                      for (int r = 0; r < rowsPerCommit; r++) {
                        int key = random.nextInt(1_000_000);
                        writer.write(key, random.nextLong(), text(random.nextInt()));
                        pendingKeys.add(key);
                      }
                      pendingRows += rowsPerCommit;
                      // A commit the system gave up after its retry budget is committed again with
                      // the
                      // same identifier, as a job retrying its checkpoint would; its latency runs
                      // from the
                      // first attempt to the one that lands, so giving up never hides a slow
                      // commit.
                      long t0 = System.nanoTime();
                      identifier++;
                      for (int attempt = 1; ; attempt++) {
                        try {
                          int retried = writer.commit(identifier);
                          recorder.record(System.nanoTime() - t0);
                          commits++;
                          retries += Math.max(0, retried);
                          landedRows += pendingRows;
                          landedKeys.addAll(pendingKeys);
                          pendingRows = 0;
                          pendingKeys.clear();
                          break;
                        } catch (Exception e) {
                          FailureKind kind = system.classify(e);
                          if (kind == FailureKind.RETRIES_EXHAUSTED) {
                            if (gaveUp++ == 0) {
                              System.err.println(
                                  system.name()
                                      + " gave up a commit (committed again): "
                                      + firstLine(e));
                            }
                            if (attempt < MAX_RECOMMITS) {
                              continue;
                            }
                          }
                          if (other++ == 0) {
                            System.err.println(
                                system.name() + " commit failed (" + kind + "): " + firstLine(e));
                          }
                          break;
                        }
                      }
                    }
                  }
                  long cpuAtEnd = threadCpuNanos();
                  long cpu = cpuAtStart < 0 || cpuAtEnd < 0 ? -1 : cpuAtEnd - cpuAtStart;
                  return new long[] {commits, retries, gaveUp, other, landedRows, cpu};
                }));
      }
      long commits = 0;
      long retries = 0;
      long gaveUp = 0;
      long other = 0;
      long landedRows = 0;
      long committerCpu = 0;
      for (Future<long[]> f : results) {
        long[] r = f.get();
        commits += r[0];
        retries += r[1];
        gaveUp += r[2];
        other += r[3];
        landedRows += r[4];
        committerCpu = r[5] < 0 || committerCpu < 0 ? -1 : committerCpu + r[5];
      }
      double seconds = (System.nanoTime() - startedAt[0]) / 1e9;
      long cpuNow = processCpuNanos();
      long processCpu = cpuNow < 0 || startedAt[1] < 0 ? -1 : cpuNow - startedAt[1];
      pool.shutdown();
      Map<String, Long> calls = table.storeCalls();
      if (!calls.isEmpty() && commits > 0) {
        StringBuilder line = new StringBuilder();
        long landed = commits;
        calls.forEach(
            (k, v) ->
                line.append(
                    String.format(java.util.Locale.ROOT, " %s=%.2f", k, (double) v / landed)));
        System.out.println(
            system.name()
                + " K="
                + committers
                + " store calls per landed commit (set-up included):"
                + line);
      }
      LatencyRecorder all = new LatencyRecorder();
      latencies.forEach(all::addAll);
      // A table that cannot be read back is a result too (the rows read are then -1): it is
      // reported, and the benchmark goes on with its other runs.
      long rowsRead;
      String readBackError = null;
      long snapshotCount;
      try {
        rowsRead = table.scan(false).rows();
      } catch (Exception e) {
        rowsRead = -1;
        readBackError = firstLine(e);
        System.err.println(system.name() + " read-back failed: " + readBackError);
      }
      try {
        snapshotCount = table.snapshotCount();
      } catch (Exception e) {
        snapshotCount = -1;
      }
      Set<Integer> distinctKeys = new HashSet<>();
      committedKeys.forEach(distinctKeys::addAll);
      return new ContentionRun(
          commits,
          seconds,
          all,
          retries,
          gaveUp,
          other,
          snapshotCount,
          rowsRead,
          spec.primaryKey() ? distinctKeys.size() : landedRows,
          processCpu,
          committerCpu,
          readBackError);
    }
  }

  /**
   * Two writers, compaction on (trigger 2), one primary-key bucket, for {@code duration}. A failed
   * commit counts, the writer restarts (a new writer, as a job restart would) and replays its
   * batch, so that the final table can be checked against the model.
   */
  public static FileConflicts fileConflicts(BenchSystem system, Duration duration, Path work)
      throws Exception {
    TableSpec spec = TableSpec.primaryKey(1, false, 2);
    try (BenchTable table = system.createTable(Files.createDirectories(work), spec)) {
      CyclicBarrier start = new CyclicBarrier(2);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      List<Future<long[]>> results = new ArrayList<>();
      List<Map<Integer, Long>> models = List.of(new HashMap<>(), new HashMap<>());
      for (int w = 0; w < 2; w++) {
        int me = w;
        results.add(
            pool.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(100 + me);
                  Map<Integer, Long> model = models.get(me);
                  long commits = 0;
                  long failed = 0;
                  long fileConflicts = 0;
                  long gaveUp = 0;
                  long restarts = 0;
                  long identifier = 0;
                  long value = 0;
                  String user = "compacting-writer-" + me;
                  BenchWriter writer = table.newWriter(user);
                  try {
                    start.await();
                    long deadline = System.nanoTime() + duration.toNanos();
                    while (System.nanoTime() < deadline) {
                      Map<Integer, Long> batch = new HashMap<>();
                      for (int r = 0; r < 100; r++) {
                        batch.put(random.nextInt(1000) * 2 + me, ++value);
                      }
                      while (true) {
                        for (Map.Entry<Integer, Long> e : batch.entrySet()) {
                          writer.write(e.getKey(), e.getValue(), text(e.getKey()));
                        }
                        try {
                          writer.commit(++identifier);
                          commits++;
                          model.putAll(batch);
                          break;
                        } catch (Exception e) {
                          FailureKind kind = system.classify(e);
                          fileConflicts += kind == FailureKind.FILE_CONFLICT ? 1 : 0;
                          gaveUp += kind == FailureKind.RETRIES_EXHAUSTED ? 1 : 0;
                          if (failed++ == 0) {
                            System.err.println(
                                system.name()
                                    + " commit failed ("
                                    + kind
                                    + "), restarting the writer: "
                                    + firstLine(e));
                          }
                          restarts++;
                          closeQuietly(writer);
                          writer = table.newWriter(user);
                        }
                      }
                    }
                  } finally {
                    closeQuietly(writer);
                  }
                  return new long[] {commits, failed, fileConflicts, gaveUp, restarts};
                }));
      }
      long t0 = System.nanoTime();
      long commits = 0;
      long failed = 0;
      long fileConflicts = 0;
      long gaveUp = 0;
      long restarts = 0;
      for (Future<long[]> f : results) {
        long[] r = f.get();
        commits += r[0];
        failed += r[1];
        fileConflicts += r[2];
        gaveUp += r[3];
        restarts += r[4];
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      pool.shutdown();
      Map<Integer, Long> expected = new HashMap<>(models.get(0));
      expected.putAll(models.get(1));
      BenchTable.ScanResult scan = table.scan(true);
      return new FileConflicts(
          system.name(),
          seconds,
          commits,
          failed,
          fileConflicts,
          gaveUp,
          restarts,
          scan.keyToValue().equals(expected),
          expected.size(),
          scan.keyToValue().size());
    }
  }

  /**
   * One writer ingests {@code rows} rows (int key, bigint value, 32-character string) into a
   * primary-key table with 4 buckets and compaction on, committing every {@code commitEvery} rows;
   * then one full scan.
   */
  public static Ingest ingest(BenchSystem system, int rows, int commitEvery, Path work)
      throws Exception {
    return ingest(system, TableSpec.primaryKey(4, false, 5), rows, commitEvery, work);
  }

  /**
   * {@link #ingest(BenchSystem, int, int, Path)} into the table {@code spec} describes (keys are
   * distinct while {@code rows} is not a multiple of 7919).
   */
  public static Ingest ingest(
      BenchSystem system, TableSpec spec, int rows, int commitEvery, Path work) throws Exception {
    return ingest(system, spec, rows, commitEvery, work, () -> {});
  }

  /** The same, calling {@code ingestDone} after the last commit, before the scan. */
  public static Ingest ingest(
      BenchSystem system, TableSpec spec, int rows, int commitEvery, Path work, Runnable ingestDone)
      throws Exception {
    return ingest(system, spec, rows, commitEvery, work, table -> ingestDone.run());
  }

  /** The same, handing the table to {@code ingestDone} after the last commit, before the scan. */
  public static Ingest ingest(
      BenchSystem system,
      TableSpec spec,
      int rows,
      int commitEvery,
      Path work,
      ThrowingConsumer<BenchTable> ingestDone)
      throws Exception {
    try (BenchTable table = system.createTable(Files.createDirectories(work), spec)) {
      long t0 = System.nanoTime();
      try (BenchWriter writer = table.newWriter("ingest")) {
        long identifier = 0;
        for (int i = 0; i < rows; i++) {
          int key = (int) ((i * 7919L) % rows);
          writer.write(key, i, text(i));
          if ((i + 1) % commitEvery == 0 || i == rows - 1) {
            writer.commit(++identifier);
          }
        }
      }
      double ingestSeconds = (System.nanoTime() - t0) / 1e9;
      ingestDone.accept(table);
      long t1 = System.nanoTime();
      BenchTable.ScanResult scan = table.scan(false);
      double scanSeconds = (System.nanoTime() - t1) / 1e9;
      return new Ingest(
          system.name(),
          rows,
          commitEvery,
          ingestSeconds,
          rows / ingestSeconds,
          scanSeconds,
          scan.rows() / scanSeconds,
          scan.rows());
    }
  }

  /** A callback that may throw. */
  @FunctionalInterface
  public interface ThrowingConsumer<T> {
    void accept(T value) throws Exception;
  }

  /** A 32-character string derived from {@code seed}. */
  static String text(int seed) {
    char[] chars = new char[32];
    long x = seed * 0x9E3779B97F4A7C15L;
    for (int i = 0; i < 32; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      chars[i] = (char) ('a' + (int) ((x >>> 1) % 26));
    }
    return new String(chars);
  }

  private static String firstLine(Exception e) {
    return e.toString().split("\n")[0];
  }

  private static void closeQuietly(BenchWriter writer) {
    try {
      writer.close();
    } catch (Exception ignored) {
      // A writer that failed its commit may fail to close as well; the workload goes on.
    }
  }
}
