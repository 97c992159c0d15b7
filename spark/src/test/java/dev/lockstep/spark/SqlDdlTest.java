package dev.lockstep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.table.FileStoreTable;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** CREATE TABLE, DESCRIBE, SHOW TABLES, ALTER TABLE SET TBLPROPERTIES, DROP TABLE, types. */
class SqlDdlTest extends SparkTestBase {

  @Test
  void createDescribeShowAlterDrop() throws Exception {
    sql(
        "CREATE TABLE lake.db.orders (dt STRING, id BIGINT, amount DECIMAL(12, 2), note STRING,"
            + " day DATE, ts TIMESTAMP_NTZ, flag BOOLEAN, score DOUBLE, n INT, raw BINARY)"
            + " USING lockstep PARTITIONED BY (dt)"
            + " TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '2')");
    assertThat(rows("SHOW TABLES IN lake.db")).anyMatch(r -> r.contains("orders"));

    List<Row> describe = sql("DESCRIBE TABLE lake.db.orders");
    assertThat(describe.stream().map(r -> r.getString(0) + " " + r.getString(1)))
        .contains(
            "dt string",
            "id bigint",
            "amount decimal(12,2)",
            "day date",
            "ts timestamp_ntz",
            "flag boolean",
            "score double",
            "n int",
            "raw binary");
    assertThat(rows("SHOW TBLPROPERTIES lake.db.orders"))
        .contains("[bucket,2]", "[primary-key,dt,id]");

    try (FileStoreTable t = engineTable("db", "orders")) {
      assertThat(t.schema().partitionKeys()).containsExactly("dt");
      assertThat(t.schema().primaryKeys()).containsExactly("dt", "id");
      assertThat(t.options().bucket()).isEqualTo(2);
    }

    sql("ALTER TABLE lake.db.orders SET TBLPROPERTIES ('snapshot.num-retained.min' = '3')");
    assertThat(rows("SHOW TBLPROPERTIES lake.db.orders")).contains("[snapshot.num-retained.min,3]");
    try (FileStoreTable t = engineTable("db", "orders")) {
      assertThat(t.schema().id()).isEqualTo(1);
      assertThat(t.schema().options()).containsEntry("snapshot.num-retained.min", "3");
    }
    assertThatThrownBy(() -> sql("ALTER TABLE lake.db.orders SET TBLPROPERTIES ('bucket' = '4')"))
        .hasMessageContaining("'bucket' of a Lockstep table is fixed");
    assertThatThrownBy(
            () ->
                sql(
                    "ALTER TABLE lake.db.orders SET TBLPROPERTIES ('snapshot.num-retained.min' = '0')"))
        .hasMessageContaining("snapshot.num-retained.min");

    sql("DROP TABLE lake.db.orders");
    assertThat(rows("SHOW TABLES IN lake.db")).noneMatch(r -> r.contains("orders"));
  }

  @Test
  void unsupportedTypesAreRefusedNamingTheColumn() {
    assertThatThrownBy(
            () -> sql("CREATE TABLE lake.db.bad (id INT, i INTERVAL DAY) USING lockstep"))
        .hasMessageContaining("Column 'i' has Spark type INTERVAL DAY");
    assertThatThrownBy(() -> sql("CREATE TABLE lake.db.bad (id INT, a ARRAY<INT>) USING lockstep"))
        .hasMessageContaining("Column 'a' has Spark type ARRAY<INT>");
    assertThat(rows("SHOW TABLES IN lake.db")).noneMatch(r -> r.contains("bad"));
  }

  @Test
  void allTypesRoundTrip() {
    sql(
        "CREATE TABLE lake.db.types (id BIGINT, amount DECIMAL(12, 2), note STRING, day DATE,"
            + " ts TIMESTAMP_NTZ, flag BOOLEAN, score DOUBLE, n INT, raw BINARY) USING lockstep");
    sql(
        "INSERT INTO lake.db.types VALUES (1, 12.5, 'a', DATE'2024-05-01',"
            + " TIMESTAMP_NTZ'2024-05-01 10:11:12.123456', true, 1.5, 7, X'CAFE'),"
            + " (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
    assertThat(
            rows(
                "SELECT id, CAST(amount AS STRING), note, CAST(day AS STRING),"
                    + " CAST(ts AS STRING), flag, score, n, hex(raw) FROM lake.db.types"))
        .containsExactly(
            "[1,12.50,a,2024-05-01,2024-05-01 10:11:12.123456,true,1.5,7,CAFE]",
            "[2,null,null,null,null,null,null,null,null]");
  }

  @Test
  void paimonTypesRoundTripWithTheirEngineTypes() throws Exception {
    sql(
        "CREATE TABLE lake.db.ptypes (t TINYINT, s SMALLINT, f FLOAT, c CHAR(3), v VARCHAR(4),"
            + " ts TIMESTAMP) USING lockstep");
    try (FileStoreTable t = engineTable("db", "ptypes")) {
      assertThat(t.schema().rowType().fields().stream().map(f -> f.type().toString()))
          .containsExactly(
              "TINYINT", "SMALLINT", "FLOAT", "CHAR(3)", "VARCHAR(4)", "TIMESTAMP_LTZ(6)");
    }
    sql(
        "INSERT INTO lake.db.ptypes VALUES (CAST(-128 AS TINYINT), CAST(-300 AS SMALLINT),"
            + " CAST(-0.5 AS FLOAT), 'ab', 'abc', TIMESTAMP_SECONDS(1714557600)),"
            + " (CAST(127 AS TINYINT), NULL, NULL, NULL, NULL, NULL)");
    assertThat(
            rows(
                "SELECT t, s, f, concat('[', c, ']'), v, unix_micros(ts) FROM lake.db.ptypes"
                    + " ORDER BY t"))
        .containsExactly(
            "[-128,-300,-0.5,[ab ],abc,1714557600000000]", "[127,null,null,null,null,null]");
    assertThat(rows("SELECT t FROM lake.db.ptypes WHERE s < 0 AND f = -0.5"))
        .containsExactly("[-128]");
  }
}
