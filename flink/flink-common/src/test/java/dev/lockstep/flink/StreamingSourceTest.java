package dev.lockstep.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.snapshot.ConsumerManager;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.flink.data.TableShape;
import dev.lockstep.flink.source.LockstepStreamSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The streaming source (issue 21 on issue 19's stream scan): a job reading a table that a writer is
 * committing to sees every committed change once, in commit order, with its kind (append table, and
 * primary-key tables with {@code changelog-producer} {@code input} and {@code none}, the latter
 * normalized by the planner from upserts); across a failover with an injected failure nothing is
 * lost or repeated and the consumer position is recorded; an expired start fails the job with the
 * engine's line. Each read ends at a sentinel row committed after the checked commits (and once as
 * many changes as expected came), so a duplicate or a change out of order shows up before it.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class StreamingSourceTest {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final int COMMITS = 24;
  private static final int KEYS = 5;
  private static final long SENTINEL = 99;

  @TempDir Path dir;

  private final ExecutorService executor = Executors.newSingleThreadExecutor();

  /** What commit {@code i} writes for key {@code k}: its kind and value. */
  private record Written(RowKind kind, long value) {}

  private static Written written(boolean primaryKey, int i, int k) {
    long value = i * 10L + k;
    if (!primaryKey || i == 0) {
      return new Written(RowKind.INSERT, value);
    }
    if (k == 0 && i == COMMITS / 2) {
      return new Written(RowKind.DELETE, (i - 1) * 10L + k);
    }
    if (k == 0 && i == COMMITS / 2 + 1) {
      return new Written(RowKind.INSERT, value);
    }
    return new Written(RowKind.UPDATE_AFTER, value);
  }

  /** Commits {@link #COMMITS} snapshots (one row per key each), then the sentinel row. */
  private Future<?> writeInBackground(TableLoader loader, boolean primaryKey) {
    return executor.submit(
        () -> {
          try (TableLoader.Opened opened = loader.open()) {
            FileStoreTable table = opened.table();
            for (int i = 0; i <= COMMITS; i++) {
              try (TableWrite write = table.newWrite("writer")) {
                if (i == COMMITS) {
                  write.write(RowKind.INSERT, GenericRow.of(SENTINEL, 0L));
                } else {
                  for (int k = 0; k < KEYS; k++) {
                    Written w = written(primaryKey, i, k);
                    write.write(w.kind(), GenericRow.of((long) k, w.value()));
                  }
                }
                table.newCommit("writer").commit(i + 1, write.prepareCommit());
              }
              Thread.sleep(30);
            }
          }
          return null;
        });
  }

  /** The changes a reader must see per key, in commit order, as Flink prints rows. */
  private static Map<Long, List<String>> expected(boolean primaryKey, boolean normalized) {
    Map<Long, List<String>> out = new TreeMap<>();
    for (int k = 0; k < KEYS; k++) {
      List<String> changes = out.computeIfAbsent((long) k, x -> new ArrayList<>());
      Long previous = null;
      for (int i = 0; i < COMMITS; i++) {
        Written w = written(primaryKey, i, k);
        if (!normalized) {
          changes.add(w.kind().shortString() + "[" + k + ", " + w.value() + "]");
        } else if (w.kind() == RowKind.DELETE) {
          changes.add("-D[" + k + ", " + previous + "]");
          previous = null;
          continue;
        } else if (previous == null) {
          changes.add("+I[" + k + ", " + w.value() + "]");
        } else {
          changes.add("-U[" + k + ", " + previous + "]");
          changes.add("+U[" + k + ", " + w.value() + "]");
        }
        previous = w.value();
      }
    }
    return out;
  }

  /**
   * Reads until the sentinel has come and at least {@code expected} other changes (after a keyed
   * shuffle, such as the planner's normalization, keys overtake each other, so the sentinel may
   * arrive before other keys' last changes); the changes per key, in the order they arrived.
   */
  private static <T> Map<Long, List<String>> readToSentinel(
      CloseableIterator<T> it, Function<T, String> print, int expected) throws Exception {
    Map<Long, List<String>> byKey = new TreeMap<>();
    boolean sentinel = false;
    int read = 0;
    try (it) {
      while (!(sentinel && read >= expected) && it.hasNext()) {
        String change = print.apply(it.next());
        long key = Long.parseLong(change.substring(3, change.indexOf(',')));
        if (key == SENTINEL) {
          sentinel = true;
        } else {
          byKey.computeIfAbsent(key, x -> new ArrayList<>()).add(change);
          read++;
        }
      }
    }
    return byKey;
  }

  private static int count(Map<Long, List<String>> changes) {
    return changes.values().stream().mapToInt(List::size).sum();
  }

  private static TableEnvironment streamingSql(String warehouse, Configuration conf) {
    TableEnvironment env =
        TableEnvironment.create(
            EnvironmentSettings.newInstance().inStreamingMode().withConfiguration(conf).build());
    env.executeSql(
        "CREATE CATALOG lake WITH ('type' = 'lockstep', 'warehouse' = '" + warehouse + "')");
    env.executeSql("USE CATALOG lake");
    return env;
  }

  private Map<Long, List<String>> readWithSql(
      String name,
      boolean primaryKey,
      boolean normalized,
      Map<String, String> options,
      String planContains,
      String... planLacks)
      throws Exception {
    String warehouse = TestTables.warehouse(dir);
    TableLoader loader = TestTables.create(warehouse, name, primaryKey, 2, options);
    TableEnvironment env = streamingSql(warehouse, new Configuration());
    String query =
        "SELECT * FROM "
            + name
            + " /*+ OPTIONS('scan.snapshot-id' = '1',"
            + " 'continuous.discovery-interval' = '50 ms') */";
    // The changelog mode the source declares shows in the plan: upserts are normalized, a full
    // changelog has its update-befores dropped for this sink, inserts need neither.
    String plan = env.explainSql(query);
    assertThat(plan).contains(planContains);
    for (String lacks : planLacks) {
      assertThat(plan).doesNotContain(lacks);
    }
    CloseableIterator<Row> it = env.executeSql(query).collect();
    Future<?> writer = writeInBackground(loader, primaryKey);
    Map<Long, List<String>> read =
        readToSentinel(it, Row::toString, count(expected(primaryKey, normalized)));
    writer.get();
    return read;
  }

  @Test
  void anAppendTableStreamsEveryCommittedRowOnceInCommitOrder() throws Exception {
    Map<Long, List<String>> read =
        readWithSql(
            "db.log",
            false,
            false,
            Map.of(),
            "TableSourceScan",
            "ChangelogNormalize",
            "DropUpdateBefore");
    assertThat(read).isEqualTo(expected(false, false));
  }

  @Test
  void aPrimaryKeyTableWithTheInputProducerStreamsItsChangelog() throws Exception {
    Map<Long, List<String>> read =
        readWithSql(
            "db.pk_input",
            true,
            false,
            Map.of("changelog-producer", "input"),
            "DropUpdateBefore",
            "ChangelogNormalize");
    assertThat(read).isEqualTo(expected(true, false));
  }

  @Test
  void aPrimaryKeyTableWithoutProducerStreamsUpsertsThePlannerNormalizes() throws Exception {
    Map<Long, List<String>> read =
        readWithSql("db.pk_none", true, true, Map.of(), "ChangelogNormalize");
    assertThat(read).isEqualTo(expected(true, true));
  }

  static final AtomicInteger SEEN = new AtomicInteger();

  /** Throws once, at the 40th change (the restart strategy restarts the job from a checkpoint). */
  static final class FailOnce implements MapFunction<RowData, String> {
    @Override
    public String map(RowData row) {
      if (SEEN.incrementAndGet() == 40) {
        throw new IllegalStateException("injected failure");
      }
      return row.getRowKind().shortString() + "[" + row.getLong(0) + ", " + row.getLong(1) + "]";
    }
  }

  @Test
  void aFailoverNeitherLosesNorRepeatsAChangeAndTheConsumerIsRecorded() throws Exception {
    String warehouse = TestTables.warehouse(dir);
    TableLoader loader =
        TestTables.create(
            warehouse, "db.pk_failover", true, 2, Map.of("changelog-producer", "input"));
    TableShape shape;
    try (TableLoader.Opened opened = loader.open()) {
      shape = new TableShape(opened.table().schema(), opened.table().options().bucket());
    }
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.enableCheckpointing(100);
    env.setParallelism(2); // subtask 1 of the source stays idle
    SEEN.set(0);
    LockstepStreamSource source =
        new LockstepStreamSource(
            loader.withOptions(Map.of("scan.snapshot-id", "1", "consumer-id", "failover-job")),
            shape,
            null,
            null,
            Duration.ofMillis(50));
    CloseableIterator<String> it =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes", TestTables.ID_VALUE)
            .map(new FailOnce())
            .returns(Types.STRING)
            .executeAndCollect();
    Future<?> writer = writeInBackground(loader, true);
    Map<Long, List<String>> read = readToSentinel(it, s -> s, count(expected(true, false)));
    writer.get();
    assertThat(SEEN.get()).as("the injected failure happened").isGreaterThan(40);
    assertThat(read).isEqualTo(expected(true, false));
    // Recorded on checkpoint completion: a position after the start, never past the table's end.
    try (TableLoader.Opened opened = loader.open()) {
      Map<String, Long> consumers =
          new ConsumerManager(opened.fileIO(), opened.table().path()).consumers();
      assertThat(consumers).containsKey("failover-job");
      assertThat(consumers.get("failover-job"))
          .isGreaterThan(1)
          .isLessThanOrEqualTo(opened.table().snapshotManager().latestId().getAsLong() + 1);
    }
  }

  @Test
  void anExpiredStartFailsTheJobWithTheEnginesLine() throws Exception {
    String warehouse = TestTables.warehouse(dir);
    TableLoader loader =
        TestTables.create(
            warehouse,
            "db.short",
            false,
            1,
            Map.of("snapshot.num-retained.min", "1", "snapshot.num-retained.max", "2"));
    try (TableLoader.Opened opened = loader.open()) {
      for (long i = 1; i <= 5; i++) {
        try (TableWrite write = opened.table().newWrite("w")) {
          write.write(GenericRow.of(i, i));
          opened.table().newCommit("w").commit(i, write.prepareCommit());
        }
      }
      assertThat(opened.table().snapshotManager().earliestId().getAsLong()).isGreaterThan(1);
    }
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    TableEnvironment env = streamingSql(warehouse, conf);
    assertThatThrownBy(
            () -> {
              try (CloseableIterator<Row> it =
                  env.executeSql(
                          "SELECT * FROM db.short /*+ OPTIONS('scan.mode' = 'from-snapshot',"
                              + " 'scan.snapshot-id' = '1') */")
                      .collect()) {
                it.hasNext();
              }
            })
        .hasStackTraceContaining(
            "Snapshot 1 of db.short, the next one this stream reads, has expired");
  }
}
