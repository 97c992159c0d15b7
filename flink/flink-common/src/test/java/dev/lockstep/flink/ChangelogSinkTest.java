package dev.lockstep.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.flink.sink.LockstepSinks;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Row kinds through the sink (issue 21 with issue 19's row kinds): a changelog's +I, -U, +U and -D
 * reach the engine as such; a streaming GROUP BY into a primary-key table gives exact aggregates;
 * deletes remove keys; {@code sequence.field} set in Flink SQL orders rows; an append table refuses
 * retractions (at planning in SQL, with the engine's line on the DataStream API).
 */
class ChangelogSinkTest {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  @TempDir Path dir;

  private static RowData row(RowKind kind, long id, Long v) {
    GenericRowData r = GenericRowData.of(id, v);
    r.setRowKind(kind);
    return r;
  }

  /** Fails on a writer that collapses kinds into write/delete: key 1 would read back as +I. */
  @Test
  void eachRowKeepsItsKindIntoAPrimaryKeyTable() throws Exception {
    TableLoader pk = TestTables.create(TestTables.warehouse(dir), "db.pk", true, 2, Map.of());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    DataStream<RowData> changelog =
        env.fromData(
            List.of(
                row(RowKind.INSERT, 1, 10L),
                row(RowKind.INSERT, 2, 20L),
                row(RowKind.INSERT, 3, 30L),
                row(RowKind.UPDATE_BEFORE, 1, 10L),
                row(RowKind.UPDATE_AFTER, 1, 11L),
                row(RowKind.DELETE, 2, 20L),
                row(RowKind.UPDATE_AFTER, 4, 40L),
                row(RowKind.INSERT, 5, 50L),
                row(RowKind.UPDATE_BEFORE, 5, 50L)),
            TestTables.ID_VALUE);
    LockstepSinks.forTable(pk).commitUser("kinds").append(changelog);
    env.execute("kinds");
    assertThat(kinds(pk)).isEqualTo(Map.of(1L, "+U 11", 3L, "+I 30", 4L, "+U 40"));
  }

  @Test
  void retractionsIntoAnAppendTableFailTheJobWithTheEnginesLine() throws Exception {
    TableLoader append =
        TestTables.create(TestTables.warehouse(dir), "db.append", false, 1, Map.of());
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(1);
    DataStream<RowData> changelog =
        env.fromData(
            List.of(
                row(RowKind.INSERT, 1, 10L),
                row(RowKind.UPDATE_AFTER, 1, 11L),
                row(RowKind.DELETE, 1, 11L)),
            TestTables.ID_VALUE);
    LockstepSinks.forTable(append).commitUser("refused").append(changelog);
    assertThatThrownBy(() -> env.execute("refused"))
        .hasStackTraceContaining("db.append is an append table");
    assertThat(TestTables.readAll(append)).isEmpty();
  }

  @Test
  void streamingGroupByIntoAPrimaryKeyTableGivesExactAggregates() throws Exception {
    StreamExecutionEnvironment env = streamingEnv(2);
    StreamTableEnvironment stream = streaming(env);
    stream.executeSql(
        "CREATE TABLE agg (k BIGINT, n BIGINT, total BIGINT, top BIGINT,"
            + " PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '3')");
    long rows = 20_000;
    long keys = 97;
    stream.createTemporaryView(
        "src",
        stream.fromDataStream(
            env.fromSequence(1, rows)
                .map(
                    i -> Row.of(i % keys, i),
                    Types.ROW_NAMED(new String[] {"k", "v"}, Types.LONG, Types.LONG))));
    stream
        .executeSql("INSERT INTO agg SELECT k, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY k")
        .await();
    List<String> expected = new ArrayList<>();
    for (long k = 0; k < keys; k++) {
      long n = 0;
      long total = 0;
      long top = 0;
      for (long v = 1; v <= rows; v++) {
        if (v % keys == k) {
          n++;
          total += v;
          top = v;
        }
      }
      expected.add("+I[" + k + ", " + n + ", " + total + ", " + top + "]");
    }
    assertThat(SqlTest.rows(batch(), "SELECT * FROM agg"))
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void deletesOfAChangelogRemoveKeys() throws Exception {
    StreamExecutionEnvironment env = streamingEnv(2);
    StreamTableEnvironment stream = streaming(env);
    stream.executeSql(
        "CREATE TABLE users (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '2')");
    DataStream<Row> changelog =
        env.fromData(
            List.of(
                Row.ofKind(RowKind.INSERT, 1L, "ann"),
                Row.ofKind(RowKind.INSERT, 2L, "bob"),
                Row.ofKind(RowKind.INSERT, 3L, "cy"),
                Row.ofKind(RowKind.UPDATE_BEFORE, 1L, "ann"),
                Row.ofKind(RowKind.UPDATE_AFTER, 1L, "anne"),
                Row.ofKind(RowKind.DELETE, 2L, "bob"),
                Row.ofKind(RowKind.DELETE, 9L, "nobody"),
                Row.ofKind(RowKind.INSERT, 4L, "di"),
                Row.ofKind(RowKind.DELETE, 4L, "di")),
            Types.ROW_NAMED(new String[] {"id", "name"}, Types.LONG, Types.STRING));
    stream.createTemporaryView(
        "cdc",
        stream.fromChangelogStream(
            changelog,
            Schema.newBuilder()
                .column("id", "BIGINT NOT NULL")
                .column("name", "STRING")
                .primaryKey("id")
                .build(),
            ChangelogMode.all()));
    stream.executeSql("INSERT INTO users SELECT id, name FROM cdc").await();
    assertThat(SqlTest.rows(batch(), "SELECT * FROM users"))
        .containsExactlyInAnyOrder("+I[1, anne]", "+I[3, cy]");
  }

  /** Fails when the option does not reach the engine: the later commit ('old') would win. */
  @Test
  void sequenceFieldSetInFlinkSqlOrdersRows() throws Exception {
    TableEnvironment batch = batch();
    batch.executeSql(
        "CREATE TABLE latest (k STRING, ts BIGINT, v STRING,"
            + " PRIMARY KEY (k) NOT ENFORCED) WITH ('sequence.field' = 'ts')");
    batch.executeSql("INSERT INTO latest VALUES ('a', 2, 'new'), ('b', 1, 'b1')").await();
    batch.executeSql("INSERT INTO latest VALUES ('a', 1, 'old'), ('b', 2, 'b2')").await();
    assertThat(SqlTest.rows(batch, "SELECT * FROM latest"))
        .containsExactlyInAnyOrder("+I[a, 2, new]", "+I[b, 2, b2]");
  }

  @Test
  void anUpdatingQueryIntoAnAppendTableIsRefusedAtPlanning() throws Exception {
    StreamTableEnvironment stream = streaming(streamingEnv(1));
    stream.executeSql("CREATE TABLE log (k STRING, n BIGINT)");
    stream.executeSql(
        "CREATE TEMPORARY VIEW src AS SELECT * FROM (VALUES ('a', 1), ('a', 2))" + " AS t(k, v)");
    assertThatThrownBy(
            () -> stream.executeSql("INSERT INTO log SELECT k, COUNT(*) FROM src" + " GROUP BY k"))
        .hasStackTraceContaining("doesn't support consuming update changes");
  }

  private static StreamExecutionEnvironment streamingEnv(int parallelism) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(200);
    env.setParallelism(parallelism);
    return env;
  }

  private StreamTableEnvironment streaming(StreamExecutionEnvironment env) {
    StreamTableEnvironment stream = StreamTableEnvironment.create(env);
    useCatalog(stream);
    return stream;
  }

  private TableEnvironment batch() {
    TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    useCatalog(batch);
    return batch;
  }

  private void useCatalog(TableEnvironment env) {
    env.executeSql(
        "CREATE CATALOG lake WITH ('type' = 'lockstep', 'warehouse' = '"
            + TestTables.warehouse(dir)
            + "')");
    env.executeSql("USE CATALOG lake");
  }

  /** Key -> "kind value" of every row the engine reads, with the winner's kind. */
  private static Map<Long, String> kinds(TableLoader loader) throws Exception {
    Map<Long, String> out = new TreeMap<>();
    try (TableLoader.Opened opened = loader.open()) {
      FileStoreTable table = opened.table();
      for (Split split : table.newScan().plan().splits()) {
        table
            .newRead()
            .forEachWithKind(
                split, (kind, r) -> out.put((Long) r.get(0), kind.shortString() + " " + r.get(1)));
      }
    }
    return out;
  }
}
