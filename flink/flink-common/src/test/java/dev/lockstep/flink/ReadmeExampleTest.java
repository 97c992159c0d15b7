package dev.lockstep.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.flink.sink.LockstepSinks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Runs the examples of flink/README.md. */
class ReadmeExampleTest {

  /** The module directory is flink/v1.20 or flink/v2.1. */
  static final Path README = Path.of("..", "README.md");

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4) // the streaming example's job runs beside inserts
              .build());

  @TempDir Path dir;

  static String block(String language) throws Exception {
    return block(language, 0);
  }

  /** The {@code index}-th (from 0) block of {@code language}. */
  static String block(String language, int index) throws Exception {
    Matcher m =
        Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL)
            .matcher(Files.readString(README));
    for (int i = 0; i <= index; i++) {
      assertThat(m.find()).as("%d ```%s blocks in %s", index + 1, language, README).isTrue();
    }
    return m.group(1);
  }

  @Test
  void sqlExample() throws Exception {
    TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    String sql = block("sql").replace("file:///tmp/lockstep-warehouse", TestTables.warehouse(dir));
    TableResult last = null;
    for (String statement : sql.split(";")) {
      if (!statement.isBlank()) {
        last = env.executeSql(statement);
        last.await();
      }
    }
    List<String> rows = new ArrayList<>();
    try (CloseableIterator<Row> it = last.collect()) {
      it.forEachRemaining(r -> rows.add(r.toString()));
    }
    rows.sort(null);
    assertThat(rows).containsExactly("+I[1, 19.90]", "+I[2, 5.00]");
    assertThat(SqlTest.rows(env, "SELECT * FROM shop.orders WHERE dt = '2024-04-30'"))
        .containsExactly("+I[2024-04-30, 7, 1.00]");
  }

  @Test
  void streamingSqlExample() throws Exception {
    String warehouse = TestTables.warehouse(dir);
    // Parallelism 1: the never-ending query keeps its slots while the batch inserts run.
    org.apache.flink.configuration.Configuration conf =
        new org.apache.flink.configuration.Configuration();
    conf.setString("parallelism.default", "1");
    TableEnvironment env =
        TableEnvironment.create(
            EnvironmentSettings.newInstance().inStreamingMode().withConfiguration(conf).build());
    String[] statements =
        block("sql", 1).replace("file:///tmp/lockstep-warehouse", warehouse).split(";");
    List<String> run = new ArrayList<>();
    for (String statement : statements) {
      if (!statement.isBlank()) {
        run.add(statement);
      }
    }
    for (String statement : run.subList(0, run.size() - 1)) {
      env.executeSql(statement).await();
    }
    TableEnvironment batch =
        TableEnvironment.create(
            EnvironmentSettings.newInstance().inBatchMode().withConfiguration(conf).build());
    batch.executeSql(
        "CREATE CATALOG lake WITH ('type' = 'lockstep', 'warehouse' = '" + warehouse + "')");
    List<String> rows = new ArrayList<>();
    try (CloseableIterator<Row> it = env.executeSql(run.get(run.size() - 1)).collect()) {
      batch.executeSql("INSERT INTO lake.shop.payments VALUES (1, 'new'), (2, 'new')").await();
      batch.executeSql("INSERT INTO lake.shop.payments VALUES (1, 'paid')").await();
      while (rows.size() < 4 && it.hasNext()) {
        rows.add(it.next().toString());
      }
    }
    assertThat(rows.subList(0, 2)).containsExactlyInAnyOrder("+I[1, new]", "+I[2, new]");
    assertThat(rows.subList(2, 4)).containsExactly("-U[1, new]", "+U[1, paid]");
  }

  @Test
  void dataStreamExample() throws Exception {
    String warehouse = TestTables.warehouse(dir);
    TableLoader created = TestTables.create(warehouse, "shop.clicks", false, 1, Map.of());
    // README begin
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(1000); // one snapshot per checkpoint
    TableLoader table = new TableLoader(warehouse, Map.of(), Identifier.parse("shop.clicks"));
    DataStream<RowData> rows =
        env.fromSequence(1, 1000)
            .map(i -> (RowData) GenericRowData.of(i, i * 10), TestTables.ID_VALUE);
    LockstepSinks.forTable(table)
        .commitUser("clicks-ingest") // fixed: survives a resubmission from a savepoint
        .append(rows);
    env.execute("clicks");
    // README end
    assertThat(TestTables.readAll(created)).hasSize(1000);

    String source =
        Files.readString(
            Path.of(
                "..",
                "flink-common",
                "src",
                "test",
                "java",
                "dev",
                "lockstep",
                "flink",
                "ReadmeExampleTest.java"));
    String body =
        source.substring(
            source.indexOf("// README begin\n") + 16, source.indexOf("    // README end"));
    StringBuilder unindented = new StringBuilder();
    for (String line : body.split("\n")) {
      unindented.append(line.startsWith("    ") ? line.substring(4) : line).append('\n');
    }
    assertThat(block("java")).isEqualTo(unindented.toString());
  }
}
