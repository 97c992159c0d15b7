package dev.lockstep.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.flink.sink.LockstepSinks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two streaming jobs with different commit users write one primary-key table (write-only) while the
 * dedicated compaction job compacts it: the table holds exactly the last value of every key, the
 * compaction job committed COMPACT snapshots, and no job restarted (a commit conflict never reaches
 * Flink; restarts are counted from task attempt numbers). The writers run until their 40,000 rows
 * each are in (a few seconds to about 20 s here, shorter than the 30 s).
 */
class ConcurrentJobsTest {

  static final int ROWS = 40_000;
  static final int KEYS = 5_000;

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(6)
              .build());

  @TempDir Path dir;

  @Test
  void twoWritersAndTheCompactionJobNeverRestartAndLoseNothing() throws Exception {
    TableLoader table =
        TestTables.create(
            TestTables.warehouse(dir),
            "db.pk",
            true,
            2,
            Map.of("num-sorted-run.compaction-trigger", "3"));
    TableLoader writeOnly = table.withOptions(Map.of("write-only", "true"));

    StreamExecutionEnvironment compactionEnv = env();
    CompactionJob.addTo(
            compactionEnv,
            table,
            new CompactionJob.Settings(
                "compaction", 1, Duration.ofMillis(200), false, Long.MAX_VALUE))
        .map(new RestartCounter<>("compaction"))
        .setParallelism(1);
    JobClient compaction = compactionEnv.executeAsync("compaction");
    JobClient a = writer(writeOnly, "writer-a", 0);
    JobClient b = writer(writeOnly, "writer-b", KEYS);
    a.getJobExecutionResult().get();
    b.getJobExecutionResult().get();
    assertThat(compaction.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    compaction.cancel().get();

    assertThat(RestartCounter.restarts("writer-a")).isZero();
    assertThat(RestartCounter.restarts("writer-b")).isZero();
    assertThat(RestartCounter.restarts("compaction")).isZero();
    List<Snapshot> snapshots = TestTables.snapshots(table);
    System.out.println(
        "ConcurrentJobsTest snapshots by user and kind: "
            + snapshots.stream()
                .collect(
                    java.util.stream.Collectors.groupingBy(
                        s -> s.commitUser() + " " + s.commitKind(),
                        java.util.TreeMap::new,
                        java.util.stream.Collectors.counting())));
    assertThat(snapshots)
        .anyMatch(
            s -> s.commitKind() == CommitKind.COMPACT && s.commitUser().equals("compaction-0"));
    assertThat(snapshots)
        .noneMatch(
            s -> s.commitKind() == CommitKind.COMPACT && s.commitUser().startsWith("writer"));

    Map<Long, Long> expected = new HashMap<>();
    for (long i = 0; i < ROWS; i++) {
      expected.put(i % KEYS, i);
      expected.put(KEYS + i % KEYS, i);
    }
    Map<Long, Long> actual = new HashMap<>();
    for (GenericRow r : TestTables.readAll(table)) {
      assertThat(actual.put((Long) r.get(0), (Long) r.get(1))).isNull();
    }
    assertThat(actual).isEqualTo(expected);
  }

  private static StreamExecutionEnvironment env() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "fixed-delay");
    conf.setString("restart-strategy.fixed-delay.attempts", "3");
    conf.setString("restart-strategy.fixed-delay.delay", "100 ms");
    env.configure(conf);
    return env;
  }

  private static JobClient writer(TableLoader table, String user, long keyOffset) throws Exception {
    StreamExecutionEnvironment env = env();
    env.enableCheckpointing(200);
    env.setParallelism(2);
    LockstepSinks.forTable(table)
        .commitUser(user)
        .append(
            env.fromSequence(0, ROWS - 1)
                .setParallelism(1)
                .map(new RestartCounter<>(user))
                .setParallelism(1)
                .map(new Slow(keyOffset), TestTables.ID_VALUE)
                .setParallelism(1));
    return env.executeAsync(user);
  }

  /** (keyOffset + i % KEYS, i), slowed so that many checkpoints and compactions fall between. */
  static final class Slow implements MapFunction<Long, RowData> {
    private final long keyOffset;

    Slow(long keyOffset) {
      this.keyOffset = keyOffset;
    }

    @Override
    public RowData map(Long i) throws Exception {
      if (i % 20 == 0) {
        Thread.sleep(1);
      }
      return GenericRowData.of(keyOffset + i % KEYS, i);
    }
  }
}
