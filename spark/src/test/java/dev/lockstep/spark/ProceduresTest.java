package dev.lockstep.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.table.FileStoreTable;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * CALL lake.sys.* on a primary-key table written by many small commits: compact by partition,
 * expire_snapshots keeps what it must, remove_orphan_files removes only unreferenced files older
 * than the guard, rollback restores a snapshot's contents.
 */
class ProceduresTest extends SparkTestBase {

  static final int COMMITS = 10;

  @BeforeAll
  static void manySmallCommits() {
    spark.conf().set("spark.sql.session.timeZone", "UTC");
    sql(
        "CREATE TABLE lake.db.proc (dt STRING NOT NULL, id BIGINT NOT NULL, v INT) USING lockstep"
            + " PARTITIONED BY (dt) TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '1')");
    for (int i = 1; i <= COMMITS; i++) {
      // Keys 0..4 of both partitions are rewritten by every commit; key 10 + i is new each time.
      sql(
          "INSERT INTO lake.db.proc SELECT IF(id % 2 = 0, 'a', 'b'), id % 5, "
              + i
              + " FROM range(0, 10) UNION ALL SELECT 'a', 10 + "
              + i
              + ", "
              + i);
    }
  }

  private static List<String> contents() {
    return rows("SELECT * FROM lake.db.proc");
  }

  private static long files(String partition) throws Exception {
    try (Stream<java.nio.file.Path> s =
        Files.walk(warehouse.resolve("db.db/proc/dt=" + partition))) {
      return s.filter(p -> p.getFileName().toString().startsWith("data-")).count();
    }
  }

  private static int liveFiles(String partition) throws Exception {
    try (FileStoreTable t = engineTable("db", "proc")) {
      return t.newScan().withPartition(java.util.Map.of("dt", partition)).plan().splits().stream()
          .mapToInt(s -> s.files().size())
          .sum();
    }
  }

  @Test
  void compactExpireRemoveOrphansRollback() throws Exception {
    List<String> before = contents();
    assertThat(before).hasSize(5 + 5 + COMMITS).contains("[a,0," + COMMITS + "]", "[a,11,1]");
    int liveA = liveFiles("a");
    int liveB = liveFiles("b");
    // Every commit wrote at least one file per partition; nothing else is on disk.
    assertThat(liveA).isGreaterThanOrEqualTo(COMMITS);
    assertThat(files("a")).isEqualTo(liveA);
    assertThat(files("b")).isEqualTo(liveB);

    // compact, one partition only
    List<Row> compacted = sql("CALL lake.sys.compact(table => 'db.proc', partitions => 'dt=a')");
    assertThat(compacted.get(0).getBoolean(0)).isTrue();
    long compactSnapshot = compacted.get(0).getLong(1);
    assertThat(compactSnapshot).isEqualTo(COMMITS + 1);
    assertThat(contents()).isEqualTo(before);
    assertThat(liveFiles("a")).isEqualTo(1);
    assertThat(liveFiles("b")).isEqualTo(liveB);
    assertThat(files("a"))
        .as("the replaced files stay for the older snapshots")
        .isEqualTo(liveA + 1);

    // expire_snapshots down to the latest: the files only expired snapshots used go.
    List<Row> expired =
        sql(
            "CALL lake.sys.expire_snapshots(table => 'db.proc', retain_max => 1,"
                + " retain_min => 1, max_deletes => 100)");
    assertThat(expired.get(0).getLong(0)).isEqualTo(COMMITS);
    assertThat(expired.get(0).getLong(3)).as("earliest").isEqualTo(compactSnapshot);
    assertThat(expired.get(0).getLong(4)).as("deleted data files").isEqualTo(liveA);
    assertThat(files("a")).isEqualTo(1);
    assertThat(files("b")).isEqualTo(liveB);
    assertThat(contents()).isEqualTo(before);
    try (FileStoreTable t = engineTable("db", "proc")) {
      assertThat(t.snapshotManager().earliestId().getAsLong()).isEqualTo(compactSnapshot);
    }
    assertThatThrownBy(
            () -> spark.read().option("snapshot-id", "2").table("lake.db.proc").collectAsList())
        .hasStackTraceContaining("Snapshot 2 does not exist");

    // remove_orphan_files: an old orphan, a fresh orphan, and the referenced files.
    java.nio.file.Path bucket = warehouse.resolve("db.db/proc/dt=a/bucket-0");
    java.nio.file.Path oldOrphan = Files.write(bucket.resolve("data-old-orphan.avro"), new byte[7]);
    Files.setLastModifiedTime(
        oldOrphan, FileTime.fromMillis(System.currentTimeMillis() - 2L * 24 * 3600 * 1000));
    java.nio.file.Path freshOrphan =
        Files.write(bucket.resolve("data-fresh-orphan.avro"), new byte[5]);
    List<Row> dry = sql("CALL lake.sys.remove_orphan_files(table => 'db.proc', dry_run => true)");
    assertThat(dry).hasSize(1);
    assertThat(dry.get(0).getString(0)).endsWith("data-old-orphan.avro");
    assertThat(dry.get(0).getLong(1)).isEqualTo(7);
    assertThat(oldOrphan).exists();
    List<Row> removed = sql("CALL lake.sys.remove_orphan_files(table => 'db.proc')");
    assertThat(removed).hasSize(1);
    assertThat(oldOrphan).doesNotExist();
    assertThat(freshOrphan).exists();
    String now =
        LocalDateTime.now(java.time.ZoneOffset.UTC)
            .plusMinutes(1)
            .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
    List<Row> all =
        sql("CALL lake.sys.remove_orphan_files(table => 'db.proc', older_than => '" + now + "')");
    assertThat(all).hasSize(1);
    assertThat(all.get(0).getString(0)).endsWith("data-fresh-orphan.avro");
    assertThat(contents()).isEqualTo(before);
    assertThat(files("a")).isEqualTo(1);
    assertThat(files("b")).isEqualTo(liveB);

    // rollback: one more commit, then back to the compacted snapshot's contents.
    sql("INSERT INTO lake.db.proc VALUES ('a', 0, -1), ('b', 99, -1)");
    assertThat(contents()).isNotEqualTo(before);
    List<Row> rolled =
        sql("CALL lake.sys.rollback(table => 'db.proc', snapshot => " + compactSnapshot + ")");
    assertThat(rolled.get(0).getLong(0)).isEqualTo(compactSnapshot + 1);
    assertThat(rolled.get(0).getLong(1)).isEqualTo(compactSnapshot);
    assertThat(rolled.get(0).getLong(2)).isEqualTo(compactSnapshot + 2);
    assertThat(contents()).isEqualTo(before);
    // Time travel in SQL: the snapshot before the rollback.
    assertThat(
            rows(
                "SELECT v FROM lake.db.proc VERSION AS OF "
                    + (compactSnapshot + 1)
                    + " WHERE dt = 'a' AND id = 0"))
        .containsExactly("[-1]");
  }

  @Test
  void badCallsFailWithAClearMessage() {
    assertThatThrownBy(() -> sql("CALL lake.sys.nope(table => 'db.proc')"))
        .hasMessageContaining("Unknown procedure lake.sys.nope");
    assertThatThrownBy(() -> sql("CALL lake.sys.expire_snapshots(retain_max => 1)"))
        .hasMessageContaining("needs the argument 'table'");
    assertThatThrownBy(() -> sql("CALL lake.sys.expire_snapshots(table => 'db.proc', x => 1)"))
        .hasMessageContaining("has no argument 'x'");
    assertThatThrownBy(() -> sql("CALL lake.sys.compact(table => 'db.missing')"))
        .hasMessageContaining("db.missing does not exist");
    assertThatThrownBy(() -> sql("CALL spark_catalog.sys.compact(table => 'db.proc')"))
        .hasMessageContaining("is not a Lockstep catalog");
    assertThatThrownBy(() -> sql("CALL lake.sys.rollback(table => 'db.proc', snapshot => 999)"))
        .hasMessageContaining("snapshot 999 of db.proc does not exist");
    // Everything else still goes to Spark's parser.
    assertThat(sql("SELECT 1").get(0).getInt(0)).isEqualTo(1);
  }
}
