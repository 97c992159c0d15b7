package dev.lockstep.bench.flink;

import dev.lockstep.bench.report.Args;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.FailedCheckpointStats;
import org.apache.flink.runtime.checkpoint.StatsSummarySnapshot;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Issue 21's benchmark: a streaming Flink SQL job ingests the same rows into a primary-key table
 * with compaction on, through Lockstep's sink ({@code 'type' = 'lockstep'} catalog) and through
 * Apache Paimon's ({@code 'type' = 'paimon'}, {@code paimon-flink-1.20} 1.3.1), on one Flink 1.20
 * MiniCluster at one parallelism, the systems alternating run by run. Per run: rows/s (rows over
 * the job's wall time, submission to finish), checkpoint end-to-end duration p50/p99 (Flink's own
 * checkpoint statistics), completed and failed checkpoints, restarts (the highest task attempt
 * number), the machine's load average, and the keys read back by a batch query (must equal the
 * distinct keys written: a run that lost data is reported as such). Reported, never asserted.
 *
 * <p>Both catalogs are found by Flink's factory discovery, so the class path decides what runs:
 * Flink 1.20 with its table planner, the {@code lockstep-flink-1.20} bundle and the {@code
 * paimon-flink-1.20} jar, as users install them ({@code benchmarks/run-flink}).
 *
 * <p>The conflict scenario ({@code --conflict-rows N}, 0 to skip; after the ingest rounds): two
 * streaming jobs, each its own commit user and compaction on (neither write-only), write {@code N}
 * rows each into one primary-key table at once, on the same keys, for each system in turn. Paimon
 * documents this as unsupported (its writers compact files another job may compact or replace too,
 * and its committer fails the commit on the conflict, which restarts the job); Lockstep's committer
 * resolves it in-process. Per job: seconds, restarts, checkpoints; per run: the keys read back
 * (every distinct key of both jobs) and whether both jobs finished. A {@code flink-conflict} line
 * per system and round.
 *
 * <p>Arguments: {@code --rows 5000000 --keys 1000000 --parallelism 2 --buckets 4 --checkpoint-ms
 * 1000 --rounds 2 --systems lockstep,paimon --conflict-rows 500000 --conflict-timeout-s 300 --work
 * DIR --out results.tsv}.
 */
public final class FlinkSinkBench {

  /** Checkpoints kept in Flink's statistics history (every one of a run, at these sizes). */
  private static final int HISTORY = 10_000;

  private FlinkSinkBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    long rows = Long.parseLong(a.getOrDefault("rows", "5000000"));
    long keys = Long.parseLong(a.getOrDefault("keys", "1000000"));
    int parallelism = Integer.parseInt(a.getOrDefault("parallelism", "2"));
    int buckets = Integer.parseInt(a.getOrDefault("buckets", "4"));
    long checkpointMs = Long.parseLong(a.getOrDefault("checkpoint-ms", "1000"));
    int rounds = Integer.parseInt(a.getOrDefault("rounds", "2"));
    String[] systems = a.getOrDefault("systems", "lockstep,paimon").split(",");
    Path work =
        Paths.get(a.getOrDefault("work", System.getProperty("java.io.tmpdir")))
            .resolve("flink-sink-bench-" + System.currentTimeMillis());
    Path out = Paths.get(Args.required(a, "out"));
    long expectedKeys = distinctKeys(rows, keys);
    long conflictRows = Long.parseLong(a.getOrDefault("conflict-rows", "0"));
    long conflictTimeout = Long.parseLong(a.getOrDefault("conflict-timeout-s", "300"));

    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
    conf.set(
        RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, java.time.Duration.ofSeconds(1));
    conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(256));
    conf.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, HISTORY);
    MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                // Twice the parallelism: the conflict scenario runs two jobs at once.
                .setNumSlotsPerTaskManager(2 * parallelism)
                .build());
    cluster.start();
    TestStreamEnvironment.setAsContext(cluster, parallelism);
    try {
      for (int round = 1; round <= rounds; round++) {
        for (String system : systems) {
          String line =
              run(
                  cluster,
                  system,
                  round,
                  work.resolve(system + "-" + round),
                  rows,
                  keys,
                  expectedKeys,
                  parallelism,
                  buckets,
                  checkpointMs);
          System.out.println(line);
          Files.writeString(
              out,
              line + "\n",
              StandardCharsets.UTF_8,
              StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
        }
      }
      for (int round = 1; conflictRows > 0 && round <= rounds; round++) {
        for (String system : systems) {
          String line =
              runConflict(
                  cluster,
                  system,
                  round,
                  work.resolve(system + "-conflict-" + round),
                  conflictRows,
                  keys,
                  parallelism,
                  buckets,
                  checkpointMs,
                  conflictTimeout);
          System.out.println(line);
          Files.writeString(
              out,
              line + "\n",
              StandardCharsets.UTF_8,
              StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
        }
      }
    } finally {
      TestStreamEnvironment.unsetAsContext();
      cluster.close();
    }
  }

  /** One job; the result line: see {@link FlinkSinkReport} for the columns. */
  private static String run(
      MiniCluster cluster,
      String system,
      int round,
      Path warehouse,
      long rows,
      long keys,
      long expectedKeys,
      int parallelism,
      int buckets,
      long checkpointMs)
      throws Exception {
    Files.createDirectories(warehouse);
    String catalog =
        "CREATE CATALOG lake WITH ('type' = '"
            + system
            + "', 'warehouse' = '"
            + warehouse.toUri()
            + "')";
    // Same table on both sides: 4 buckets, compaction on (neither is write-only), each system's
    // default data files: Parquet with zstd in both (FLINK_BENCH_FORMAT=avro: Avro in both).
    String format = System.getenv().getOrDefault("FLINK_BENCH_FORMAT", "");
    String options =
        "'bucket' = '"
            + buckets
            + "'"
            + (format.isEmpty() ? "" : ", 'file.format' = '" + format + "'");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    env.enableCheckpointing(checkpointMs);
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    tables.executeSql(catalog);
    tables.executeSql("USE CATALOG lake");
    tables.executeSql("CREATE DATABASE IF NOT EXISTS bench");
    tables.executeSql(
        "CREATE TABLE bench.t (k BIGINT, v BIGINT, s STRING,"
            + " PRIMARY KEY (k) NOT ENFORCED) WITH ("
            + options
            + ")");
    final long keyCount = keys;
    tables.createTemporaryView(
        "src",
        tables.fromDataStream(
            env.fromSequence(0, rows - 1)
                .map(
                    i -> Row.of(key(i, keyCount), i, "payload-" + i),
                    Types.ROW_NAMED(
                        new String[] {"k", "v", "s"}, Types.LONG, Types.LONG, Types.STRING))));
    double load1 = loadAverage();
    long start = System.nanoTime();
    TableResult result = tables.executeSql("INSERT INTO bench.t SELECT k, v, s FROM src");
    JobID job = result.getJobClient().orElseThrow().getJobID();
    result.await();
    double seconds = (System.nanoTime() - start) / 1e9;
    double load2 = loadAverage();
    AccessExecutionGraph graph = cluster.getExecutionGraph(job).get();
    CheckpointStatsSnapshot stats = graph.getCheckpointStatsSnapshot();
    StatsSummarySnapshot duration = stats.getSummaryStats().getEndToEndDurationStats();
    int restarts = 0;
    for (AccessExecutionVertex v : graph.getAllExecutionVertices()) {
      restarts = Math.max(restarts, v.getCurrentExecutionAttempt().getAttemptNumber());
    }
    long readBack = countKeys(system, warehouse);
    // Failed checkpoints by reason (task ids blanked), from the kept history (HISTORY entries).
    Map<String, Integer> reasons = new TreeMap<>();
    for (AbstractCheckpointStats c : stats.getHistory().getCheckpoints()) {
      if (c instanceof FailedCheckpointStats) {
        String message = ((FailedCheckpointStats) c).getFailureMessage();
        reasons.merge(
            message == null
                ? "?"
                : message
                    .replaceAll("\\s+", " ")
                    .replaceAll("[0-9a-f]{32}(_[0-9a-f]{32})?(_\\d+)*", "<task>"),
            1,
            Integer::sum);
      }
    }
    StringBuilder failure = new StringBuilder();
    reasons.forEach(
        (reason, n) ->
            failure
                .append(failure.length() == 0 ? "" : "; ")
                .append(n)
                .append(" x ")
                .append(reason));
    return String.join(
        "\t",
        "flink-sink",
        system,
        String.valueOf(round),
        String.valueOf(rows),
        fmt(seconds),
        fmt(rows / seconds),
        String.valueOf(stats.getCounts().getNumberOfCompletedCheckpoints()),
        String.valueOf(stats.getCounts().getNumberOfFailedCheckpoints()),
        String.valueOf(duration.getQuantile(0.5)),
        String.valueOf(duration.getQuantile(0.99)),
        String.valueOf(restarts),
        fmt(load1),
        fmt(load2),
        String.valueOf(readBack),
        String.valueOf(expectedKeys),
        String.valueOf(parallelism),
        String.valueOf(buckets),
        String.valueOf(checkpointMs),
        String.valueOf(keys),
        failure.length() == 0 ? "-" : failure.toString());
  }

  /**
   * The conflict scenario: two INSERT jobs into one table at once, job {@code j} writing rows
   * {@code [j * rows, (j + 1) * rows)} of the key scramble. The line: {@code flink-conflict,
   * system, round, rows per job, parallelism, buckets, checkpoint ms, then per job (seconds,
   * restarts, completed checkpoints, failed checkpoints, outcome: finished / failed / timed out),
   * keys read, keys expected, load before, load after, the first failure message of a job that did
   * not finish (or -)}.
   */
  private static String runConflict(
      MiniCluster cluster,
      String system,
      int round,
      Path warehouse,
      long rows,
      long keys,
      int parallelism,
      int buckets,
      long checkpointMs,
      long timeoutSeconds)
      throws Exception {
    Files.createDirectories(warehouse);
    String catalog =
        "CREATE CATALOG lake WITH ('type' = '"
            + system
            + "', 'warehouse' = '"
            + warehouse.toUri()
            + "')";
    String format = System.getenv().getOrDefault("FLINK_BENCH_FORMAT", "");
    String options =
        "'bucket' = '"
            + buckets
            + "'"
            + (format.isEmpty() ? "" : ", 'file.format' = '" + format + "'");
    List<TableResult> results = new ArrayList<>();
    List<JobID> jobs = new ArrayList<>();
    double load1 = loadAverage();
    long start = System.nanoTime();
    for (int j = 0; j < 2; j++) {
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
      env.setParallelism(parallelism);
      env.enableCheckpointing(checkpointMs);
      StreamTableEnvironment tables = StreamTableEnvironment.create(env);
      tables.executeSql(catalog);
      tables.executeSql("USE CATALOG lake");
      if (j == 0) {
        tables.executeSql("CREATE DATABASE IF NOT EXISTS bench");
        tables.executeSql(
            "CREATE TABLE bench.t (k BIGINT, v BIGINT, s STRING,"
                + " PRIMARY KEY (k) NOT ENFORCED) WITH ("
                + options
                + ")");
      }
      final long keyCount = keys;
      tables.createTemporaryView(
          "src",
          tables.fromDataStream(
              env.fromSequence(j * rows, (j + 1) * rows - 1)
                  .map(
                      i -> Row.of(key(i, keyCount), i, "payload-" + i),
                      Types.ROW_NAMED(
                          new String[] {"k", "v", "s"}, Types.LONG, Types.LONG, Types.STRING))));
      TableResult result = tables.executeSql("INSERT INTO bench.t SELECT k, v, s FROM src");
      results.add(result);
      jobs.add(result.getJobClient().orElseThrow().getJobID());
    }
    List<String> perJob = new ArrayList<>();
    StringBuilder failedReasons = new StringBuilder();
    String firstFailure = "-";
    for (int j = 0; j < 2; j++) {
      String outcome = "finished";
      long left = timeoutSeconds * 1000 - (System.nanoTime() - start) / 1_000_000;
      try {
        results.get(j).await(Math.max(1, left), java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        outcome = "timed out";
        results.get(j).getJobClient().orElseThrow().cancel().get();
      } catch (Exception e) {
        outcome = "failed";
        if (firstFailure.equals("-")) {
          firstFailure = rootMessage(e);
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      AccessExecutionGraph graph = cluster.getExecutionGraph(jobs.get(j)).get();
      int restarts = 0;
      for (AccessExecutionVertex v : graph.getAllExecutionVertices()) {
        restarts = Math.max(restarts, v.getCurrentExecutionAttempt().getAttemptNumber());
      }
      if (restarts > 0 && firstFailure.equals("-") && graph.getFailureInfo() != null) {
        firstFailure = graph.getFailureInfo().getExceptionAsString();
      }
      CheckpointStatsSnapshot stats = graph.getCheckpointStatsSnapshot();
      failedReasons
          .append(failedReasons.length() == 0 ? "" : " | ")
          .append("job ")
          .append(j + 1)
          .append(": ")
          .append(failureReasons(stats));
      perJob.add(
          String.join(
              "\t",
              fmt(seconds),
              String.valueOf(restarts),
              String.valueOf(stats.getCounts().getNumberOfCompletedCheckpoints()),
              String.valueOf(stats.getCounts().getNumberOfFailedCheckpoints()),
              outcome));
    }
    double load2 = loadAverage();
    long readBack = countKeys(system, warehouse);
    return String.join(
        "\t",
        "flink-conflict",
        system,
        String.valueOf(round),
        String.valueOf(rows),
        String.valueOf(parallelism),
        String.valueOf(buckets),
        String.valueOf(checkpointMs),
        perJob.get(0),
        perJob.get(1),
        String.valueOf(readBack),
        String.valueOf(distinctKeys(2 * rows, keys)),
        fmt(load1),
        fmt(load2),
        oneLine(firstFailure),
        failedReasons.toString());
  }

  /** Failed checkpoints by reason (task ids blanked), from the kept history; "-" when none. */
  static String failureReasons(CheckpointStatsSnapshot stats) {
    Map<String, Integer> reasons = new TreeMap<>();
    for (AbstractCheckpointStats c : stats.getHistory().getCheckpoints()) {
      if (c instanceof FailedCheckpointStats) {
        String message = ((FailedCheckpointStats) c).getFailureMessage();
        reasons.merge(message == null ? "?" : oneLine(message), 1, Integer::sum);
      }
    }
    StringBuilder out = new StringBuilder();
    reasons.forEach(
        (reason, n) ->
            out.append(out.length() == 0 ? "" : "; ").append(n).append(" x ").append(reason));
    return out.length() == 0 ? "-" : out.toString();
  }

  /** The first line of the innermost cause's message, the exception class when it has none. */
  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }

  /** The first line of {@code text} with task ids blanked, at most 300 characters. */
  static String oneLine(String text) {
    String line = text == null ? "-" : text.strip().split("\n", 2)[0];
    line =
        line.replaceAll("\\s+", " ").replaceAll("[0-9a-f]{32}(_[0-9a-f]{32})?(_\\d+)*", "<task>");
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }

  private static long countKeys(String system, Path warehouse) throws Exception {
    TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    batch.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    batch.executeSql(
        "CREATE CATALOG lake WITH ('type' = '"
            + system
            + "', 'warehouse' = '"
            + warehouse.toUri()
            + "')");
    try (CloseableIterator<Row> it =
        batch.executeSql("SELECT COUNT(*) FROM lake.bench.t").collect()) {
      return ((Number) it.next().getField(0)).longValue();
    }
  }

  /** Row {@code i}'s key: a fixed scramble of i into [0, keys), so later rows update keys. */
  static long key(long i, long keys) {
    long x = i * 0x9E3779B97F4A7C15L;
    x ^= x >>> 29;
    return Math.floorMod(x, keys);
  }

  private static long distinctKeys(long rows, long keys) {
    BitSet seen = new BitSet((int) keys);
    for (long i = 0; i < rows; i++) {
      seen.set((int) key(i, keys));
    }
    return seen.cardinality();
  }

  static double loadAverage() {
    try {
      return Double.parseDouble(
          Files.readString(Paths.get("/proc/loadavg")).trim().split("\\s+")[0]);
    } catch (Exception e) {
      return -1;
    }
  }

  static String fmt(double d) {
    return String.format(Locale.ROOT, "%.2f", d);
  }

  /** The result lines of {@code file}, split into columns. */
  static List<String[]> lines(Path file) throws Exception {
    return lines(file, "flink-sink");
  }

  /** The result lines of {@code file} of one kind ({@code flink-sink}, {@code flink-conflict}). */
  static List<String[]> lines(Path file, String kind) throws Exception {
    List<String[]> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (line.startsWith(kind + "\t")) {
        out.add(line.split("\t"));
      }
    }
    return out;
  }
}
