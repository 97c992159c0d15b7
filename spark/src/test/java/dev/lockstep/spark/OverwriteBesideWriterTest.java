package dev.lockstep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.table.FileStoreTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The seed text's conflict on Spark's side: an INSERT OVERWRITE of a historical partition beside a
 * concurrent writer (a second Spark job) of the current partition. The overwrite's tasks are held
 * by a gate UDF while the other job commits, so the interleaving is forced, not hoped for.
 */
class OverwriteBesideWriterTest extends SparkTestBase {

  /** Counted down by the overwrite's first row; the gate then waits for {@link #release}. */
  static volatile CountDownLatch started = new CountDownLatch(0);

  static volatile CountDownLatch release = new CountDownLatch(0);

  @BeforeAll
  static void registerGate() {
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
    // One partition: the held overwrite occupies one of the four task slots, the others run the
    // concurrent writer and reader.
    spark.range(0, 20, 1, 1).createOrReplaceTempView("source_ids");
  }

  private static void createTable(String name) {
    sql(
        "CREATE TABLE lake.db."
            + name
            + " (dt STRING NOT NULL, id BIGINT NOT NULL, v INT)"
            + " USING lockstep PARTITIONED BY (dt) TBLPROPERTIES ('bucket' = '2')");
    sql(
        "INSERT INTO lake.db."
            + name
            + " VALUES ('2024-04-01', 1, 1), ('2024-04-01', 2, 1),"
            + " ('2024-04-02', 3, 1), ('2024-05-01', 100, 1)");
  }

  private static String ids(String table, String dt) {
    return rows("SELECT id FROM lake.db." + table + " WHERE dt = '" + dt + "'").toString();
  }

  private static String messages(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append(" | ");
    }
    return all.toString();
  }

  @Test
  void disjointPartitionsBothCommitAndReadersSeeOldOrNew() throws Exception {
    createTable("disjoint");
    String oldIds = ids("disjoint", "2024-04-01");
    started = new CountDownLatch(1);
    release = new CountDownLatch(1);
    CompletableFuture<Void> overwrite =
        CompletableFuture.runAsync(
            () ->
                sql(
                    "INSERT OVERWRITE lake.db.disjoint PARTITION (dt = '2024-04-01')"
                        + " SELECT gate(id + 1000), 2 FROM source_ids"));
    assertThat(started.await(3, TimeUnit.MINUTES)).isTrue();
    // The overwrite's tasks are running: the concurrent writer commits twice to the current day.
    sql("INSERT INTO lake.db.disjoint VALUES ('2024-05-01', 101, 1)");
    sql("INSERT INTO lake.db.disjoint VALUES ('2024-05-01', 102, 1)");

    // A reader of the overwritten partition, running until the overwrite is done.
    List<String> seen = new CopyOnWriteArrayList<>();
    AtomicBoolean done = new AtomicBoolean();
    CompletableFuture<Void> reader =
        CompletableFuture.runAsync(
            () -> {
              while (!done.get()) {
                seen.add(ids("disjoint", "2024-04-01"));
              }
              seen.add(ids("disjoint", "2024-04-01"));
            });
    seen.add(ids("disjoint", "2024-04-01"));
    release.countDown();
    overwrite.get(5, TimeUnit.MINUTES);
    done.set(true);
    reader.get(5, TimeUnit.MINUTES);

    List<String> newIdList = new ArrayList<>();
    for (long i = 1000; i < 1020; i++) {
      newIdList.add("[" + i + "]");
    }
    String newIds = newIdList.stream().sorted().toList().toString();
    assertThat(ids("disjoint", "2024-04-01")).isEqualTo(newIds);
    assertThat(ids("disjoint", "2024-04-02")).isEqualTo("[[3]]");
    assertThat(ids("disjoint", "2024-05-01")).isEqualTo("[[100], [101], [102]]");
    assertThat(seen).isNotEmpty().allSatisfy(s -> assertThat(s).isIn(oldIds, newIds));
    assertThat(seen.get(0)).isEqualTo(oldIds);
    assertThat(seen.get(seen.size() - 1)).isEqualTo(newIds);
    try (FileStoreTable t = engineTable("db", "disjoint")) {
      assertThat(new OrphanFilesCleaner(t, Duration.ZERO, true).clean().removed()).isEmpty();
    }
  }

  @Test
  void samePartitionFailsCleanlyNamingThePartitionAndTheSnapshot() throws Exception {
    createTable("same");
    started = new CountDownLatch(1);
    release = new CountDownLatch(1);
    CompletableFuture<Void> overwrite =
        CompletableFuture.runAsync(
            () ->
                sql(
                    "INSERT OVERWRITE lake.db.same PARTITION (dt = '2024-05-01')"
                        + " SELECT gate(id + 1000), 2 FROM source_ids"));
    assertThat(started.await(3, TimeUnit.MINUTES)).isTrue();
    sql("INSERT INTO lake.db.same VALUES ('2024-05-01', 101, 1)");
    long concurrent;
    try (FileStoreTable t = engineTable("db", "same")) {
      concurrent = t.snapshotManager().latest().orElseThrow().id();
    }
    release.countDown();
    assertThatThrownBy(() -> overwrite.get(5, TimeUnit.MINUTES))
        .satisfies(
            e ->
                assertThat(messages(e))
                    .contains("Overwrite conflict: snapshot " + concurrent)
                    .contains("partition 'dt=2024-05-01'"));

    assertThat(ids("same", "2024-05-01")).isEqualTo("[[100], [101]]");
    assertThat(ids("same", "2024-04-01")).isEqualTo("[[1], [2]]");
    try (FileStoreTable t = engineTable("db", "same")) {
      assertThat(t.snapshotManager().latest().orElseThrow().id()).isEqualTo(concurrent);
      // Nothing of the failed overwrite is left: no file that no snapshot references.
      assertThat(new OrphanFilesCleaner(t, Duration.ZERO, true).clean().removed()).isEmpty();
    }
  }

  @Test
  void dynamicOverwriteReplacesOnlyThePartitionsWritten() throws Exception {
    createTable("dynamic");
    spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
    try {
      sql("INSERT OVERWRITE lake.db.dynamic VALUES ('2024-04-02', 30, 3), ('2024-04-03', 40, 3)");
    } finally {
      spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    }
    assertThat(rows("SELECT dt, id FROM lake.db.dynamic"))
        .containsExactly(
            "[2024-04-01,1]",
            "[2024-04-01,2]",
            "[2024-04-02,30]",
            "[2024-04-03,40]",
            "[2024-05-01,100]");
    spark
        .sql("SELECT '2024-04-01' AS dt, 7L AS id, 7 AS v")
        .writeTo("lake.db.dynamic")
        .overwritePartitions();
    assertThat(rows("SELECT dt, id FROM lake.db.dynamic WHERE dt = '2024-04-01'"))
        .containsExactly("[2024-04-01,7]");
    // Static overwrite of the whole table (no PARTITION clause).
    sql("INSERT OVERWRITE lake.db.dynamic VALUES ('2024-06-01', 9, 9)");
    assertThat(rows("SELECT dt, id FROM lake.db.dynamic")).containsExactly("[2024-06-01,9]");
    assertThatThrownBy(
            () ->
                spark
                    .sql("SELECT '2024-04-01' AS dt, 7L AS id, 7 AS v")
                    .writeTo("lake.db.dynamic")
                    .overwrite(org.apache.spark.sql.functions.col("v").equalTo(1)))
        .hasMessageContaining("names a column that is not a partition column");
  }
}
