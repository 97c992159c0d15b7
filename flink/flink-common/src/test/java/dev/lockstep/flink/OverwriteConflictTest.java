package dev.lockstep.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.flink.sink.LockstepSinks;
import dev.lockstep.flink.sink.OverwriteMode;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed text's stream-and-batch conflict: a streaming job appends to partition {@code cur} while
 * batch jobs overwrite partitions of the same table. An overwrite of another partition commits; an
 * overwrite of {@code cur} fails the batch job with a message naming the partition and the stream's
 * concurrent snapshot; the streaming job keeps running and never restarts.
 */
class OverwriteConflictTest {

  static final TypeInformation<RowData> DT_ID =
      InternalTypeInfo.of(
          RowType.of(
              new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(false)},
              new String[] {"dt", "id"}));

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  @TempDir Path dir;

  @Test
  void overwriteOfAnotherPartitionCommitsAndOfTheStreamsPartitionFailsTheBatchJobOnly()
      throws Exception {
    String warehouse = TestTables.warehouse(dir);
    Identifier id = Identifier.parse("db.events");
    try (FileIO io = FileIODiscovery.open(dev.lockstep.fs.Path.of(warehouse), Map.of());
        FileStoreTable t =
            new FileSystemCatalog(io, dev.lockstep.fs.Path.of(warehouse), Map.of())
                .createTable(
                    id,
                    Schema.newBuilder()
                        .column("dt", DataType.string())
                        .column("id", DataType.bigint().notNull())
                        .partitionKeys("dt")
                        .build());
        TableWrite w = t.newWrite("seed")) {
      for (long i = 0; i < 100; i++) {
        w.write(GenericRow.of("old", i));
      }
      t.newCommit("seed").commit(1, w.prepareCommit());
    }
    TableLoader table = new TableLoader(warehouse, Map.of(), id);

    StreamExecutionEnvironment streamEnv = StreamExecutionEnvironment.getExecutionEnvironment();
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "fixed-delay");
    conf.setString("restart-strategy.fixed-delay.attempts", "3");
    streamEnv.configure(conf);
    streamEnv.enableCheckpointing(200);
    LockstepSinks.forTable(table)
        .commitUser("stream")
        .parallelism(1)
        .append(
            streamEnv
                .fromSequence(0, Long.MAX_VALUE - 1)
                .setParallelism(1)
                .map(new RestartCounter<>("stream"))
                .setParallelism(1)
                .map(new Row("cur", 10), DT_ID)
                .setParallelism(1));
    JobClient stream = streamEnv.executeAsync("stream");
    awaitStreamCommits(table, 2);

    overwrite(table, "old");
    assertThat(stream.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);

    assertThatThrownBy(() -> overwrite(table, "cur"))
        .hasStackTraceContaining("INSERT OVERWRITE into db.events was not committed")
        .hasStackTraceContaining("to partition 'dt=cur'")
        .hasStackTraceContaining("(APPEND by stream)");
    awaitStreamCommits(table, streamCommits(table) + 2);
    assertThat(stream.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    assertThat(RestartCounter.restarts("stream")).isZero();
    stream.cancel().get();

    Set<Long> old = new TreeSet<>();
    Set<Long> cur = new HashSet<>();
    for (GenericRow r : TestTables.readAll(table)) {
      if (r.get(0).equals("old")) {
        old.add((Long) r.get(1));
      } else {
        assertThat((Long) r.get(1)).as("a row of the failed overwrite").isNotNegative();
        assertThat(cur.add((Long) r.get(1))).as("stream row %s twice", r).isTrue();
      }
    }
    Set<Long> overwritten = new TreeSet<>();
    for (long i = 1; i <= 500; i++) {
      overwritten.add(-i);
    }
    assertThat(old).isEqualTo(overwritten);
  }

  /** A batch job replacing partition {@code dt} with ids -1..-500, written over about a second. */
  private static void overwrite(TableLoader table, String dt) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "none");
    env.configure(conf);
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    LockstepSinks.forTable(table)
        .parallelism(1)
        .overwrite(new OverwriteMode(Map.of("dt", dt)))
        .append(
            env.fromSequence(1, 500)
                .setParallelism(1)
                .map(new Row(dt, 1), DT_ID)
                .setParallelism(1)
                .map(r -> (RowData) GenericRowData.of(r.getString(0), -r.getLong(1)), DT_ID)
                .setParallelism(1));
    env.execute("overwrite " + dt);
  }

  private static long streamCommits(TableLoader table) throws Exception {
    List<Snapshot> snapshots = TestTables.snapshots(table);
    return snapshots.stream().filter(s -> s.commitUser().equals("stream")).count();
  }

  private static void awaitStreamCommits(TableLoader table, long count) throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (streamCommits(table) < count) {
      assertThat(System.nanoTime()).as("stream commits within 120 s").isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  /** (dt, i), sleeping 1 ms every {@code every} rows. */
  static final class Row implements MapFunction<Long, RowData> {
    private final String dt;
    private final int every;

    Row(String dt, int every) {
      this.dt = dt;
      this.every = every;
    }

    @Override
    public RowData map(Long i) throws Exception {
      if (i % every == 0) {
        Thread.sleep(1);
      }
      return GenericRowData.of(StringData.fromString(dt), i);
    }
  }
}
