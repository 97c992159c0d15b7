package dev.lockstep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.sink.LockstepSinks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * The seed text's mixed case: a Flink 1.20 streaming job (its own MiniCluster, checkpoints every
 * 200 ms, in this JVM) appends to partition {@code cur} while Spark runs {@code INSERT OVERWRITE}
 * of the same table. The overwrite's task is held by a gate UDF until the stream has committed
 * several times after the overwrite began, so the overlap is forced. An overwrite of partition
 * {@code old} commits; one of {@code cur} fails naming the partition and the stream's snapshot; the
 * Flink job keeps committing and never restarts, and every row it committed is there once.
 */
class FlinkStreamBesideSparkOverwriteTest extends SparkTestBase {

  static final TypeInformation<RowData> DT_ID =
      InternalTypeInfo.of(
          RowType.of(
              new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(false)},
              new String[] {"dt", "id"}));

  /** Task attempts after the first of the Flink job (static: the MiniCluster runs in this JVM). */
  static final AtomicInteger RESTARTS = new AtomicInteger();

  static volatile CountDownLatch started = new CountDownLatch(0);
  static volatile CountDownLatch release = new CountDownLatch(0);

  @Test
  void overwriteOfAnOldPartitionCommitsAndOfTheStreamsPartitionFailsTheSparkJobOnly()
      throws Exception {
    spark
        .udf()
        .register(
            "gate",
            (UDF1<Long, Long>)
                id -> {
                  started.countDown();
                  if (!release.await(3, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("gate never released");
                  }
                  return id;
                },
            DataTypes.LongType);
    spark.range(0, 20, 1, 1).createOrReplaceTempView("source_ids");
    sql(
        "CREATE TABLE lake.db.mixed (dt STRING NOT NULL, id BIGINT NOT NULL)"
            + " USING lockstep PARTITIONED BY (dt) TBLPROPERTIES ('bucket' = '2')");
    sql("INSERT INTO lake.db.mixed VALUES ('old', 1), ('old', 2), ('older', 3)");

    TableLoader table =
        new TableLoader(warehouse.toUri().toString(), Map.of(), new Identifier("db", "mixed"));
    Configuration conf = new Configuration();
    // A failure of the stream would restart it (and be counted), not end it.
    conf.setString("restart-strategy.type", "fixed-delay");
    conf.setString("restart-strategy.fixed-delay.attempts", "3");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.enableCheckpointing(200);
    LockstepSinks.forTable(table)
        .commitUser("stream")
        .parallelism(1)
        .append(
            env.fromSequence(0, Long.MAX_VALUE - 1)
                .setParallelism(1)
                .map(new CountRestarts())
                .setParallelism(1)
                .map(new CurRow(), DT_ID)
                .setParallelism(1));
    JobClient stream = env.executeAsync("stream");
    try {
      awaitStreamCommitsAfter(latestId(), 2);

      // Overwrite of 'old', held while the stream commits three times to 'cur'.
      String error = overwriteHeldOverStreamCommits("old");
      assertThat(error).isNull();
      assertThat(rows("SELECT dt, id FROM lake.db.mixed WHERE dt <> 'cur'"))
          .containsExactlyElementsOf(expected("old", "[older,3]"));
      assertThat(stream.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);

      // Overwrite of 'cur' itself: fails, commits nothing, the stream goes on.
      long before = latestId();
      error = overwriteHeldOverStreamCommits("cur");
      Matcher named =
          Pattern.compile(
                  "Overwrite conflict: snapshot (\\d+) \\(APPEND by stream\\)"
                      + " added \\S+ to partition 'dt=cur'")
              .matcher(String.valueOf(error));
      assertThat(named.find())
          .as("error naming the stream's snapshot and 'dt=cur': %s", error)
          .isTrue();
      assertThat(Long.parseLong(named.group(1))).isGreaterThan(before);

      awaitStreamCommitsAfter(latestId(), 2);
      assertThat(stream.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
      assertThat(RESTARTS.get()).as("restarts of the Flink job").isZero();
    } finally {
      stream.cancel().get(2, TimeUnit.MINUTES);
    }

    List<Snapshot> snapshots = snapshots();
    assertThat(snapshots)
        .filteredOn(s -> !s.commitUser().equals("stream"))
        .extracting(s -> s.commitKind().toString())
        .containsExactly("APPEND", "OVERWRITE");
    assertThat(snapshots.get(snapshots.size() - 1).commitUser()).isEqualTo("stream");
    assertThat(rows("SELECT dt, id FROM lake.db.mixed WHERE dt <> 'cur'"))
        .containsExactlyElementsOf(expected("old", "[older,3]"));
    // The stream (one ordered source) committed a prefix 0..n-1 of its sequence, each row once;
    // no row of the failed overwrite of 'cur' (ids 1000..1019 would break the prefix).
    List<Long> cur =
        sql("SELECT id FROM lake.db.mixed WHERE dt = 'cur' ORDER BY id").stream()
            .map(r -> r.getLong(0))
            .toList();
    assertThat(cur).isNotEmpty();
    for (int i = 0; i < cur.size(); i++) {
      assertThat(cur.get(i)).as("row %s of 'cur'", i).isEqualTo((long) i);
    }
  }

  /**
   * Runs {@code INSERT OVERWRITE ... PARTITION (dt)} of ids 1000..1019, holding its task until the
   * stream has committed three times after the overwrite's job began; returns the error's messages,
   * or null when it committed.
   */
  private static String overwriteHeldOverStreamCommits(String dt) throws Exception {
    started = new CountDownLatch(1);
    release = new CountDownLatch(1);
    CompletableFuture<Void> overwrite =
        CompletableFuture.runAsync(
            () ->
                sql(
                    "INSERT OVERWRITE lake.db.mixed PARTITION (dt = '"
                        + dt
                        + "')"
                        + " SELECT gate(id + 1000) FROM source_ids"));
    assertThat(started.await(3, TimeUnit.MINUTES)).isTrue();
    awaitStreamCommitsAfter(latestId(), 3);
    release.countDown();
    try {
      overwrite.get(5, TimeUnit.MINUTES);
      return null;
    } catch (java.util.concurrent.ExecutionException e) {
      StringBuilder all = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        all.append(t.getMessage()).append(" | ");
      }
      return all.toString();
    }
  }

  private static List<String> expected(String dt, String other) {
    List<String> out = new ArrayList<>();
    for (long i = 1000; i < 1020; i++) {
      out.add("[" + dt + "," + i + "]");
    }
    out.add(other);
    return out.stream().sorted().toList();
  }

  private static long latestId() throws Exception {
    try (FileStoreTable t = engineTable("db", "mixed")) {
      return t.snapshotManager().latestId().orElse(0);
    }
  }

  private static List<Snapshot> snapshots() throws Exception {
    List<Snapshot> out = new ArrayList<>();
    try (FileStoreTable t = engineTable("db", "mixed")) {
      var manager = t.snapshotManager();
      for (long id = manager.earliestId().orElse(1); id <= manager.latestId().orElse(0); id++) {
        manager.find(id).ifPresent(out::add);
      }
    }
    return out;
  }

  /** Waits until {@code count} snapshots after {@code after} are the stream's. */
  private static void awaitStreamCommitsAfter(long after, int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      long streamCommits =
          snapshots().stream()
              .filter(s -> s.id() > after && s.commitUser().equals("stream"))
              .count();
      if (streamCommits >= count) {
        return;
      }
      assertThat(System.nanoTime())
          .as("%s stream commits within 120 s", count)
          .isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  /** Counts task attempts after the first: a restart of the job re-opens it with attempt 1, ... */
  static final class CountRestarts extends RichMapFunction<Long, Long> {
    @Override
    public void open(OpenContext context) {
      if (getRuntimeContext().getTaskInfo().getAttemptNumber() > 0) {
        RESTARTS.incrementAndGet();
      }
    }

    @Override
    public Long map(Long value) {
      return value;
    }
  }

  /** ('cur', i), sleeping 1 ms every 10 rows. */
  static final class CurRow implements MapFunction<Long, RowData> {
    @Override
    public RowData map(Long i) throws Exception {
      if (i % 10 == 0) {
        Thread.sleep(1);
      }
      return GenericRowData.of(StringData.fromString("cur"), i);
    }
  }
}
