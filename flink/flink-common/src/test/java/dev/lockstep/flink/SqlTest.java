package dev.lockstep.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Flink SQL on Lockstep tables: catalog DDL, INSERT INTO and OVERWRITE, batch SELECT. */
class SqlTest {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  @TempDir Path dir;
  TableEnvironment batch;

  @BeforeEach
  void catalog() {
    batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    batch.getConfig().set("parallelism.default", "2");
    batch.executeSql(
        "CREATE CATALOG lake WITH ('type' = 'lockstep', 'warehouse' = '"
            + TestTables.warehouse(dir)
            + "')");
    batch.executeSql("USE CATALOG lake");
  }

  static List<String> rows(TableEnvironment env, String query) throws Exception {
    List<String> out = new ArrayList<>();
    try (CloseableIterator<Row> it = env.executeSql(query).collect()) {
      it.forEachRemaining(r -> out.add(r.toString()));
    }
    out.sort(null);
    return out;
  }

  @Test
  void catalogCreatesListsAltersAndDropsDatabasesAndTables() throws Exception {
    batch.executeSql("CREATE DATABASE shop");
    assertThat(rows(batch, "SHOW DATABASES")).contains("+I[shop]", "+I[default]");
    batch.executeSql(
        "CREATE TABLE shop.orders (dt STRING, id BIGINT, amount DECIMAL(12, 2),"
            + " PRIMARY KEY (dt, id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')");
    assertThat(rows(batch, "SHOW TABLES IN shop")).containsExactly("+I[orders]");
    batch.executeSql("ALTER TABLE shop.orders SET ('write-buffer-size' = '32 mb')").await();
    CatalogBaseTable table =
        batch.getCatalog("lake").orElseThrow().getTable(new ObjectPath("shop", "orders"));
    assertThat(table.getOptions())
        .containsEntry("bucket", "2")
        .containsEntry("write-buffer-size", "32 mb");
    assertThat(table.getUnresolvedSchema().getPrimaryKey()).isPresent();
    assertThatThrownBy(() -> batch.executeSql("ALTER TABLE shop.orders ADD note STRING").await())
        .hasStackTraceContaining("options only");
    assertThatThrownBy(() -> batch.executeSql("DROP DATABASE shop").await())
        .hasStackTraceContaining("not empty");
    batch.executeSql("DROP TABLE shop.orders").await();
    assertThat(rows(batch, "SHOW TABLES IN shop")).isEmpty();
    batch.executeSql("CREATE TABLE shop.t (id INT)").await();
    batch.executeSql("DROP DATABASE shop CASCADE").await();
    assertThat(rows(batch, "SHOW DATABASES")).doesNotContain("+I[shop]");
  }

  @Test
  void batchInsertUpsertSelectWithPushdownAndOverwrite() throws Exception {
    batch.executeSql(
        "CREATE TABLE orders (dt STRING, id BIGINT, amount DECIMAL(12, 2),"
            + " PRIMARY KEY (dt, id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')");
    batch
        .executeSql(
            "INSERT INTO orders VALUES ('d1', 1, 1.00), ('d1', 2, 2.00),"
                + " ('d2', 3, 3.00), ('d2', 4, 4.00)")
        .await();
    batch.executeSql("INSERT INTO orders VALUES ('d1', 1, 10.00)").await();
    assertThat(rows(batch, "SELECT * FROM orders"))
        .containsExactly(
            "+I[d1, 1, 10.00]", "+I[d1, 2, 2.00]", "+I[d2, 3, 3.00]", "+I[d2, 4, 4.00]");

    String query = "SELECT id FROM orders WHERE dt = 'd2'";
    String plan = batch.explainSql(query);
    assertThat(plan).contains("partitions=[{dt=d2}]").contains("project=[id]");
    assertThat(rows(batch, query)).containsExactly("+I[3]", "+I[4]");

    // Static: replaces d1 only. Dynamic: replaces the partitions written to (d3), keeps d2.
    batch.executeSql("INSERT OVERWRITE orders PARTITION (dt = 'd1') VALUES (5, 5.00)").await();
    batch.executeSql("INSERT OVERWRITE orders VALUES ('d3', 6, 6.00)").await();
    assertThat(rows(batch, "SELECT * FROM orders"))
        .containsExactly(
            "+I[d1, 5, 5.00]", "+I[d2, 3, 3.00]", "+I[d2, 4, 4.00]", "+I[d3, 6, 6.00]");
  }

  @Test
  void streamingInsertOfAnUpdatingQueryIntoAPrimaryKeyTableAndAppends() throws Exception {
    batch.executeSql("CREATE TABLE counts (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)");
    batch.executeSql("CREATE TABLE events (k STRING, v INT)");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(200);
    env.setParallelism(2);
    StreamTableEnvironment stream = StreamTableEnvironment.create(env);
    stream.executeSql(
        "CREATE CATALOG lake WITH ('type' = 'lockstep', 'warehouse' = '"
            + TestTables.warehouse(dir)
            + "')");
    stream.executeSql("USE CATALOG lake");
    stream.executeSql(
        "CREATE TEMPORARY VIEW src AS SELECT * FROM (VALUES ('a', 1), ('b', 2),"
            + " ('a', 3), ('c', 4), ('a', 5)) AS t(k, v)");
    stream.executeSql("INSERT INTO events SELECT k, v FROM src").await();
    stream.executeSql("INSERT INTO counts SELECT k, COUNT(*) FROM src GROUP BY k").await();
    assertThat(rows(batch, "SELECT * FROM counts"))
        .containsExactly("+I[a, 3]", "+I[b, 1]", "+I[c, 1]");
    assertThat(rows(batch, "SELECT * FROM events")).hasSize(5);
    assertThatThrownBy(() -> stream.executeSql("INSERT OVERWRITE events SELECT k, v FROM src"))
        .hasStackTraceContaining("OVERWRITE");
  }

  @Test
  void connectorTableOutsideTheCatalog() throws Exception {
    TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    env.executeSql(
        "CREATE TABLE t (id INT, s STRING, d DATE, ts TIMESTAMP(3), x DOUBLE,"
            + " b BOOLEAN, bin BYTES) WITH ('connector' = 'lockstep', 'warehouse' = '"
            + TestTables.warehouse(dir)
            + "', 'database' = 'default', 'table' = 'typed')");
    env.executeSql(
            "INSERT INTO t VALUES (1, 'x', DATE '2024-05-01',"
                + " TIMESTAMP '2024-05-01 10:11:12.123', 1.5, TRUE, X'0102')")
        .await();
    assertThat(rows(env, "SELECT id, s, d, ts, x, b FROM t"))
        .containsExactly("+I[1, x, 2024-05-01, 2024-05-01T10:11:12.123, 1.5, true]");
    // The same table through the catalog.
    assertThat(rows(batch, "SELECT id, s FROM typed")).containsExactly("+I[1, x]");
  }

  @Test
  void paimonTypesRoundTripWithTheirEngineTypes() throws Exception {
    batch.executeSql(
        "CREATE TABLE typed (t TINYINT NOT NULL, s SMALLINT, f FLOAT, c CHAR(3), v VARCHAR(4),"
            + " ts TIMESTAMP_LTZ(3), PRIMARY KEY (t) NOT ENFORCED)");
    batch
        .executeSql(
            "INSERT INTO typed VALUES (CAST(-128 AS TINYINT), CAST(-300 AS SMALLINT),"
                + " CAST(-0.5 AS FLOAT), CAST('ab' AS CHAR(3)), 'abcd',"
                + " TO_TIMESTAMP_LTZ(1714557600123, 3)),"
                + " (CAST(127 AS TINYINT), CAST(NULL AS SMALLINT), CAST(NULL AS FLOAT),"
                + " CAST(NULL AS CHAR(3)), CAST(NULL AS VARCHAR(4)),"
                + " CAST(NULL AS TIMESTAMP_LTZ(3)))")
        .await();
    assertThat(rows(batch, "SELECT * FROM typed"))
        .containsExactly(
            "+I[-128, -300, -0.5, ab , abcd, 2024-05-01T10:00:00.123Z]",
            "+I[127, null, null, null, null, null]");
    assertThat(rows(batch, "SELECT t FROM typed WHERE s < 0 AND ts > TO_TIMESTAMP_LTZ(0, 3)"))
        .containsExactly("+I[-128]");
    // The engine keeps the declared types, and Flink sees them again from the catalog.
    String columns =
        batch
            .getCatalog("lake")
            .orElseThrow()
            .getTable(new ObjectPath("default", "typed"))
            .getUnresolvedSchema()
            .getColumns()
            .toString();
    assertThat(columns)
        .contains("TINYINT NOT NULL")
        .contains("SMALLINT")
        .contains("FLOAT")
        .contains("CHAR(3)")
        .contains("VARCHAR(4)")
        .contains("TIMESTAMP_LTZ(3)");
  }
}
