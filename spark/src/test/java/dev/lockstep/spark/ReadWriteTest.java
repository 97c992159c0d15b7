package dev.lockstep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * Append and primary-key tables written with INSERT and DataFrameWriterV2 and read back exactly;
 * randomized filters and projections against an unfiltered read filtered in memory.
 */
class ReadWriteTest extends SparkTestBase {

  private static final StructType SCHEMA =
      new StructType()
          .add("dt", DataTypes.StringType, false)
          .add("id", DataTypes.LongType, false)
          .add("v", DataTypes.IntegerType, true)
          .add("s", DataTypes.StringType, true);

  private static List<Row> randomRows(Random random, int count, int keys) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rows.add(
          RowFactory.create(
              "2024-05-0" + (1 + random.nextInt(4)),
              (long) random.nextInt(keys),
              random.nextInt(10) == 0 ? null : random.nextInt(100),
              random.nextInt(10) == 0 ? null : "s" + random.nextInt(20)));
    }
    return rows;
  }

  private static List<String> strings(List<Row> rows) {
    return rows.stream().map(Row::toString).sorted().collect(Collectors.toList());
  }

  @Test
  void appendTableInsertAndWriterV2ReadBackExactly() throws Exception {
    sql(
        "CREATE TABLE lake.db.events (dt STRING NOT NULL, id BIGINT NOT NULL, v INT, s STRING)"
            + " USING lockstep PARTITIONED BY (dt) TBLPROPERTIES ('bucket' = '2')");
    Random random = new Random(7);
    List<Row> expected = new ArrayList<>(randomRows(random, 300, 1000));
    spark.createDataFrame(expected, SCHEMA).repartition(3).writeTo("lake.db.events").append();
    sql("INSERT INTO lake.db.events VALUES ('2024-05-09', 1, 2, 'x'), ('2024-05-09', 1, 2, 'x')");
    expected.add(RowFactory.create("2024-05-09", 1L, 2, "x"));
    expected.add(RowFactory.create("2024-05-09", 1L, 2, "x"));

    assertThat(strings(sql("SELECT * FROM lake.db.events"))).isEqualTo(strings(expected));
    try (FileStoreTable t = engineTable("db", "events")) {
      assertThat(t.snapshotManager().latest().orElseThrow().id()).isEqualTo(2);
    }
    checkRandomFilters("lake.db.events", expected, new Random(11));
  }

  @Test
  void primaryKeyTableKeepsTheLatestRowPerKey() throws Exception {
    sql(
        "CREATE TABLE lake.db.users (dt STRING NOT NULL, id BIGINT NOT NULL, v INT, s STRING)"
            + " USING lockstep PARTITIONED BY (dt)"
            + " TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '3')");
    Random random = new Random(3);
    Map<List<Object>, Row> latest = new HashMap<>();
    for (int batch = 0; batch < 3; batch++) {
      // Distinct keys within a batch: SQL gives duplicates in one statement no order.
      Map<List<Object>, Row> batchRows = new HashMap<>();
      for (Row r : randomRows(random, 200, 150)) {
        batchRows.put(List.of(r.get(0), r.get(1)), r);
      }
      List<Row> rows = new ArrayList<>(batchRows.values());
      if (batch == 1) {
        spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView("batch");
        sql("INSERT INTO lake.db.users SELECT * FROM batch");
      } else {
        spark.createDataFrame(rows, SCHEMA).writeTo("lake.db.users").append();
      }
      latest.putAll(batchRows);
    }
    List<Row> expected = new ArrayList<>(latest.values());
    assertThat(strings(sql("SELECT * FROM lake.db.users"))).isEqualTo(strings(expected));
    try (FileStoreTable t = engineTable("db", "users")) {
      List<GenericRow> engineRows = t.newRead().readAll(t.newScan().plan());
      assertThat(engineRows).hasSize(expected.size());
    }
    checkRandomFilters("lake.db.users", expected, new Random(5));
  }

  @Test
  void partitionFiltersArePushedAndOthersStayWithSpark() {
    sql(
        "CREATE TABLE lake.db.pushed (dt STRING NOT NULL, id BIGINT NOT NULL, v INT, s STRING)"
            + " USING lockstep PARTITIONED BY (dt)");
    sql("INSERT INTO lake.db.pushed VALUES ('a', 1, 1, 'x'), ('b', 2, 2, 'y'), ('c', 3, 3, 'z')");
    Dataset<Row> df = spark.sql("SELECT id FROM lake.db.pushed WHERE dt IN ('a', 'b') AND v > 1");
    assertThat(strings(df.collectAsList())).containsExactly("[2]");
    BatchScanExec scan =
        (BatchScanExec)
            df.queryExecution()
                .executedPlan()
                .collect(
                    new scala.PartialFunction<org.apache.spark.sql.execution.SparkPlan, Object>() {
                      @Override
                      public boolean isDefinedAt(org.apache.spark.sql.execution.SparkPlan p) {
                        return p instanceof BatchScanExec;
                      }

                      @Override
                      public Object apply(org.apache.spark.sql.execution.SparkPlan p) {
                        return p;
                      }
                    })
                .head();
    // Only the bucket of the two accepted partitions is planned; v and s are not read... s at all.
    assertThat(scan.inputPartitions().size()).isEqualTo(2);
    assertThat(scan.scan().readSchema().fieldNames()).containsExactly("id", "v");
    assertThat(scan.scan().description()).contains("In(dt").doesNotContain("GreaterThan(v");
  }

  /** Random projections and filters (partition, non-partition, mixed) against memory. */
  private void checkRandomFilters(String table, List<Row> all, Random random) {
    String[] columns = {"dt", "id", "v", "s"};
    List<String> queries = new ArrayList<>();
    List<List<String>> expectations = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      List<String> projection = new ArrayList<>();
      for (String c : columns) {
        if (random.nextBoolean()) {
          projection.add(c);
        }
      }
      if (projection.isEmpty()) {
        projection.add(columns[random.nextInt(columns.length)]);
      }
      String[] condition = randomCondition(random);
      Predicate<Row> filter = memoryFilter(condition);
      int[] indexes =
          projection.stream().mapToInt(c -> Arrays.asList(columns).indexOf(c)).toArray();
      List<String> expected =
          all.stream()
              .filter(filter)
              .map(
                  r -> {
                    Object[] values = new Object[indexes.length];
                    for (int k = 0; k < indexes.length; k++) {
                      values[k] = r.get(indexes[k]);
                    }
                    return RowFactory.create(values).toString();
                  })
              .sorted()
              .collect(Collectors.toList());
      queries.add(
          "SELECT " + String.join(", ", projection) + " FROM " + table + " WHERE " + condition[0]);
      expectations.add(expected);
    }
    for (int i = 0; i < queries.size(); i++) {
      assertThat(rows(queries.get(i))).as(queries.get(i)).isEqualTo(expectations.get(i));
    }
  }

  /** {sql, kind, column, value}. */
  private static String[] randomCondition(Random random) {
    int day = 1 + random.nextInt(4);
    int v = random.nextInt(100);
    switch (random.nextInt(7)) {
      case 0:
        return new String[] {"dt = '2024-05-0" + day + "'", "dt=", "2024-05-0" + day};
      case 1:
        return new String[] {"dt >= '2024-05-0" + day + "'", "dt>=", "2024-05-0" + day};
      case 2:
        return new String[] {"v < " + v, "v<", Integer.toString(v)};
      case 3:
        return new String[] {
          "dt < '2024-05-0" + day + "' AND v > " + v,
          "dt<v>",
          "2024-05-0" + day,
          Integer.toString(v)
        };
      case 4:
        return new String[] {
          "dt = '2024-05-0" + day + "' OR v = " + v,
          "dt=|v=",
          "2024-05-0" + day,
          Integer.toString(v)
        };
      case 5:
        return new String[] {"s IS NULL", "s null"};
      default:
        return new String[] {"NOT (dt = '2024-05-0" + day + "')", "dt!=", "2024-05-0" + day};
    }
  }

  private static Predicate<Row> memoryFilter(String[] c) {
    switch (c[1]) {
      case "dt=":
        return r -> r.getString(0).equals(c[2]);
      case "dt>=":
        return r -> r.getString(0).compareTo(c[2]) >= 0;
      case "v<":
        return r -> !r.isNullAt(2) && r.getInt(2) < Integer.parseInt(c[2]);
      case "dt<v>":
        return r ->
            r.getString(0).compareTo(c[2]) < 0
                && !r.isNullAt(2)
                && r.getInt(2) > Integer.parseInt(c[3]);
      case "dt=|v=":
        return r ->
            r.getString(0).equals(c[2])
                || (!r.isNullAt(2) && r.getInt(2) == Integer.parseInt(c[3]));
      case "s null":
        return r -> r.isNullAt(3);
      default:
        return r -> !r.getString(0).equals(c[2]);
    }
  }
}
