package dev.lockstep.flink;

import dev.lockstep.engine.catalog.Identifier;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dedicated compaction job: runs beside {@code write-only = true} sinks of a table and is the
 * only one compacting it, so no writer's commit ever meets a file conflict.
 *
 * <ol>
 *   <li>{@code parallelism} workers; worker {@code i} owns the partitions whose path hashes to
 *       {@code i}, so two workers never compact the same bucket.
 *   <li>Each worker runs the engine's compaction rounds: its view moves to the latest snapshot, the
 *       buckets that need it are compacted (universal, or full with {@code --full}), and the result
 *       is one COMPACT snapshot under the worker's commit user ({@code <commit-user>-<i>});
 *       snapshot conflicts with writers are resolved in the engine's commit. A round that found
 *       nothing sleeps {@code interval}.
 *   <li>Worker 0 expires snapshots after its committed rounds (the table's {@code snapshot.*}
 *       options).
 *   <li>The job holds no Flink state and needs no checkpoints: a failed round leaves nothing
 *       behind, and a restarted worker simply starts the next round.
 * </ol>
 *
 * <pre>
 * flink run -c dev.lockstep.flink.CompactionJob lockstep-flink-1.20-bundle.jar \
 *   --warehouse s3://bucket/wh --table shop.orders --parallelism 4 --interval 10s \
 *   -o lock.enabled=true -o lock.type=zookeeper -o lock.zookeeper.connect=zk:2181
 * </pre>
 */
public final class CompactionJob {

  private static final Logger LOG = LoggerFactory.getLogger(CompactionJob.class);

  private CompactionJob() {}

  /** What to compact and how. */
  public record Settings(
      String commitUser, int parallelism, Duration interval, boolean full, long maxRounds)
      implements java.io.Serializable {
    public Settings {
      if (parallelism < 1) {
        throw new IllegalArgumentException("--parallelism must be at least 1, got " + parallelism);
      }
    }
  }

  /** Adds the compaction workers to {@code env}; run it with {@code env.execute()}. */
  public static DataStream<Long> addTo(
      StreamExecutionEnvironment env, TableLoader loader, Settings settings) {
    int p = settings.parallelism();
    return env.fromSequence(0, p - 1)
        .setParallelism(1)
        .name("Compaction workers")
        .partitionCustom(new WorkerPartitioner(), i -> i)
        .process(new Worker(loader.withOptions(Map.of("write-only", "false")), settings))
        .setParallelism(p)
        .name("Compact " + loader.identifier());
  }

  /** Starts the job on {@code env} without waiting. */
  public static JobClient start(
      StreamExecutionEnvironment env, TableLoader loader, Settings settings) throws Exception {
    addTo(env, loader, settings);
    return env.executeAsync("Lockstep compaction " + loader.identifier());
  }

  public static void main(String[] args) throws Exception {
    String warehouse = null;
    String table = null;
    Map<String, String> options = new HashMap<>();
    String user = "compaction";
    int parallelism = 1;
    Duration interval = Duration.ofSeconds(10);
    boolean full = false;
    long rounds = Long.MAX_VALUE;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (a) {
        case "--warehouse" -> {
          warehouse = value;
          i++;
        }
        case "--table" -> {
          table = value;
          i++;
        }
        case "--commit-user" -> {
          user = value;
          i++;
        }
        case "--parallelism" -> {
          parallelism = Integer.parseInt(value);
          i++;
        }
        case "--interval" -> {
          interval = parseDuration(value);
          i++;
        }
        case "--rounds" -> {
          rounds = Long.parseLong(value);
          i++;
        }
        case "--full" -> full = true;
        case "-o", "--option" -> {
          int eq = value == null ? -1 : value.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException("-o needs KEY=VALUE, got " + value);
          }
          options.put(value.substring(0, eq), value.substring(eq + 1));
          i++;
        }
        default ->
            throw new IllegalArgumentException(
                "Unknown argument '"
                    + a
                    + "'. Usage:"
                    + " --warehouse <dir> --table <db.table> [--parallelism n] [--interval 10s]"
                    + " [--full] [--rounds n] [--commit-user name] [-o key=value]...");
      }
    }
    if (warehouse == null || table == null) {
      throw new IllegalArgumentException("--warehouse and --table are required");
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    addTo(
        env,
        new TableLoader(warehouse, options, Identifier.parse(table)),
        new Settings(user, parallelism, interval, full, rounds));
    env.execute("Lockstep compaction " + table);
  }

  static Duration parseDuration(String text) {
    String t = text.trim().toLowerCase(java.util.Locale.ROOT).replace(" ", "");
    if (t.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
    }
    if (t.endsWith("s")) {
      return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
    }
    if (t.endsWith("min")) {
      return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 3)));
    }
    throw new IllegalArgumentException("--interval '" + text + "': write e.g. 500ms, 10s, 2min");
  }

  private static final class WorkerPartitioner implements Partitioner<Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public int partition(Long key, int numPartitions) {
      return (int) (key % numPartitions);
    }
  }

  /** One worker: compaction rounds over its share of the partitions until cancelled. */
  private static final class Worker extends ProcessFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    private final TableLoader loader;
    private final Settings settings;
    private volatile boolean running = true;

    Worker(TableLoader loader, Settings settings) {
      this.loader = loader;
      this.settings = settings;
    }

    @Override
    public void processElement(Long worker, Context ctx, Collector<Long> out) throws IOException {
      int p = settings.parallelism();
      int me = (int) (long) worker;
      try (TableLoader.Opened opened = loader.open();
          dev.lockstep.engine.operation.CompactionJob job =
              new dev.lockstep.engine.operation.CompactionJob(
                  opened.table(),
                  settings.commitUser() + "-" + me,
                  partition -> Math.floorMod(partition.hashCode(), p) == me,
                  settings.full(),
                  me == 0)) {
        long rounds = 0;
        while (running && rounds++ < settings.maxRounds()) {
          if (job.runOnce().isPresent()) {
            out.collect(job.commits());
          } else if (rounds < settings.maxRounds()) {
            try {
              Thread.sleep(settings.interval().toMillis());
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
          }
        }
        LOG.info(
            "Compaction worker {} of {} stopped after {} rounds, {} commits, {} file"
                + " conflicts",
            me,
            loader.identifier(),
            job.rounds(),
            job.commits(),
            job.fileConflicts());
      } catch (InterruptedIOException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void close() {
      running = false;
    }
  }
}
