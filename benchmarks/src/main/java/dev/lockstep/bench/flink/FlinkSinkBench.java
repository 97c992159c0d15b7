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
 * <p>Arguments: {@code --rows 5000000 --keys 1000000 --parallelism 2 --buckets 4 --checkpoint-ms
 * 1000 --rounds 2 --systems lockstep,paimon --work DIR --out results.tsv}.
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
                .setNumSlotsPerTaskManager(parallelism)
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
    List<String[]> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (line.startsWith("flink-sink\t")) {
        out.add(line.split("\t"));
      }
    }
    return out;
  }
}
