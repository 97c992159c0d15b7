package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.ExpireReport;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction of append tables (issue 20): inline in writers and by the dedicated compactor, minor
 * and full; rows and their order within a bucket unchanged; partitions, mixed file formats,
 * streaming reads, expiration and orphan removal, and overwrites and compactions that race.
 */
class AppendCompactionTableTest {

  @TempDir Path dir;

  /** Rows as "writer:n", in the order a batch read returns them. */
  static List<String> rows(FileStoreTable table) throws Exception {
    List<String> rows = new ArrayList<>();
    for (GenericRow r : table.newRead().readAll(table.newScan().plan())) {
      rows.add(text(r));
    }
    return rows;
  }

  static String text(GenericRow r) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < r.size(); i++) {
      values.add(String.valueOf(r.get(i)));
    }
    return String.join(":", values);
  }

  /** The live data files: name to "partition/bucket". */
  static Map<String, String> live(FileStoreTable table) throws Exception {
    return new dev.lockstep.engine.scan.FileStoreScan(table)
        .liveFiles(table.snapshotManager().latest().orElseThrow()).values().stream()
            .collect(
                Collectors.toMap(
                    (ManifestEntry e) -> e.file().fileName(),
                    (ManifestEntry e) -> e.partition() + "/" + e.bucket()));
  }

  static long count(FileStoreTable table, CommitKind kind) throws Exception {
    long count = 0;
    for (long id = table.snapshotManager().earliestId().orElse(1);
        id <= table.snapshotManager().latestId().orElse(0);
        id++) {
      if (table.snapshotManager().get(id).commitKind() == kind) {
        count++;
      }
    }
    return count;
  }

  @Test
  void aWriterCompactsSmallFilesInlineAndEveryReadKeepsTheRowsInOrder() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, Map.of("compaction.min.file-num", "3"));
    List<String> expected = new ArrayList<>();
    try (TableWrite write = table.newWrite("w")) {
      TableCommit commit = table.newCommit("w");
      for (int c = 1; c <= 12; c++) {
        for (int i = 0; i < 10; i++) {
          long n = c * 100L + i;
          write.write(GenericRow.of("w", n));
          expected.add("w:" + n);
        }
        commit.commit(c, write.prepareCommit());
        assertThat(rows(table)).as("after commit %d", c).containsExactlyElementsOf(expected);
      }
      // Hands out a compaction still running (or picks one now).
      write.compact(false);
      commit.commit(13, write.prepareCommit());
    }
    assertThat(rows(table)).containsExactlyElementsOf(expected);
    assertThat(count(table, CommitKind.COMPACT)).as("COMPACT snapshots").isPositive();
    assertThat(live(table)).as("fewer files than commits").hasSizeLessThan(12);
  }

  @Test
  void aWriteOnlyWriterNeverCompacts() throws Exception {
    FileStoreTable table =
        TestTables.appendTable(dir, Map.of("compaction.min.file-num", "2", "write-only", "true"));
    appendBatches(table, "w", 8, 5);
    assertThat(count(table, CommitKind.COMPACT)).isZero();
    assertThat(live(table)).hasSize(8);
  }

  /** {@code commits} batches of {@code rows} rows of one writer, each its own commit. */
  static List<String> appendBatches(FileStoreTable table, String user, int commits, int rows)
      throws Exception {
    List<String> written = new ArrayList<>();
    try (TableWrite write = table.newWrite(user)) {
      TableCommit commit = table.newCommit(user);
      for (int c = 1; c <= commits; c++) {
        for (int i = 0; i < rows; i++) {
          long n = c * 1000L + i;
          write.write(GenericRow.of(user, n));
          written.add(user + ":" + n);
        }
        commit.commit(c, write.prepareCommit());
      }
    }
    return written;
  }

  @Test
  void theCompactorKeepsTheOrderOfRowsWrittenBySeveralWritersIntoOneCommit() throws Exception {
    FileStoreTable table =
        TestTables.appendTable(
            dir,
            Map.of(
                "compaction.min.file-num",
                "3",
                "compaction.max.file-num",
                "4",
                "write-only",
                "true"));
    TableCommit commit = table.newCommit("job");
    sparkStyleCommits(table, commit, 1, 15);
    List<String> before = rows(table);
    assertThat(before).hasSize(4 * (10 * 2 + 5));
    assertWriterOrder(before);
    int filesBefore = live(table).size();
    try (TableCompactor compactor = table.newCompactor("compactor")) {
      int rounds = 0;
      while (compactor.compactOnce(false).isPresent()) {
        rounds++;
        assertThat(rows(table)).as("after minor round %d", rounds).isEqualTo(before);
      }
      assertThat(rounds).isGreaterThan(1);
      assertThat(live(table).size()).isLessThan(filesBefore).isLessThan(3);
      sparkStyleCommits(table, commit, 16, 18);
      before = rows(table);
      assertWriterOrder(before);
      assertThat(compactor.compactOnce(true)).isPresent();
      assertThat(rows(table)).isEqualTo(before);
      assertThat(live(table)).hasSize(1);
      assertThat(compactor.compactOnce(true)).as("one file: nothing left to do").isEmpty();
    }
    assertThat(table.snapshotManager().latest().orElseThrow().commitKind())
        .isEqualTo(CommitKind.COMPACT);
  }

  /**
   * Spark-style commits {@code from..to}: two writers (tasks) write the same bucket, each from
   * sequence number 0, and one commit takes both (every third commit only writer a).
   */
  private static void sparkStyleCommits(FileStoreTable table, TableCommit commit, int from, int to)
      throws Exception {
    for (int c = from; c <= to; c++) {
      List<CommitMessage> messages = new ArrayList<>();
      for (String w : c % 3 == 0 ? List.of("a") : List.of("a", "b")) {
        try (TableWrite write = table.newWrite("job")) {
          for (int i = 0; i < 4; i++) {
            write.write(GenericRow.of(w, c * 100L + i));
          }
          messages.addAll(write.prepareCommit());
        }
      }
      commit.commit(c, messages);
    }
  }

  /** Each writer's rows come in write order (n grows). */
  static void assertWriterOrder(List<String> rows) {
    Map<String, Long> last = new java.util.HashMap<>();
    for (String row : rows) {
      String[] parts = row.split(":");
      long n = Long.parseLong(parts[parts.length - 1]);
      String writer = String.join(":", java.util.Arrays.copyOf(parts, parts.length - 1));
      Long previous = last.put(writer, n);
      assertThat(previous == null || previous < n)
          .as("%s after %s:%s in %s", row, writer, previous, rows)
          .isTrue();
    }
  }

  private FileStoreTable partitionedAvro() throws Exception {
    return TestTables.catalog(dir)
        .createTable(
            new Identifier("db", "events"),
            Schema.newBuilder()
                .column("day", DataType.string())
                .column("writer", DataType.string())
                .column("n", DataType.bigint())
                .partitionKeys("day")
                .option("bucket", "2")
                .option("file.format", "avro")
                .option("write-only", "true")
                .build());
  }

  @Test
  void fullCompactionOfOnePartitionRewritesAvroAndParquetFilesIntoTheCurrentFormat()
      throws Exception {
    FileStoreTable avro = partitionedAvro();
    FileStoreTable parquet = avro.copyWithOptions(Map.of("file.format", "parquet"));
    TableCommit commit = avro.newCommit("w");
    long id = 0;
    for (FileStoreTable table : List.of(avro, parquet)) {
      for (int c = 0; c < 4; c++) {
        try (TableWrite write = table.newWrite("w")) {
          for (int i = 0; i < 20; i++) {
            write.write(GenericRow.of(i % 2 == 0 ? "a" : "b", "w", id * 100 + i));
          }
          commit.commit(++id, write.prepareCommit());
        }
      }
    }
    List<String> before = rows(parquet);
    Map<String, String> filesBefore = live(parquet);
    assertThat(filesBefore.keySet()).anyMatch(f -> f.endsWith(".avro"));
    assertThat(filesBefore.keySet()).anyMatch(f -> f.endsWith(".parquet"));
    try (TableCompactor compactor =
        parquet.newCompactor("compactor").withPartitionFilter(p -> p.equals("day=a"))) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    Map<String, String> filesAfter = live(parquet);
    assertThat(rows(parquet)).isEqualTo(before);
    Map<String, String> dayB = new java.util.HashMap<>(filesBefore);
    dayB.values().removeIf(v -> !v.startsWith("day=b/"));
    Map<String, String> dayBAfter = new java.util.HashMap<>(filesAfter);
    dayBAfter.values().removeIf(v -> !v.startsWith("day=b/"));
    assertThat(dayBAfter).as("the other partition is untouched").isEqualTo(dayB);
    Set<String> dayA = new TreeSet<>(filesAfter.keySet());
    dayA.removeAll(dayB.keySet());
    assertThat(dayA)
        .as("one Parquet file per bucket of day=a")
        .hasSize(2)
        .allMatch(f -> f.endsWith(".parquet") && !filesBefore.containsKey(f));
  }

  @Test
  void aStreamReadsEveryAppendedRowOnceAndNothingFromCompactSnapshots() throws Exception {
    FileStoreTable table =
        TestTables.appendTable(
            dir, Map.of("compaction.min.file-num", "2", "write-only", "true", "bucket", "2"));
    StreamTableScan stream =
        table
            .copyWithOptions(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "1"))
            .newStreamScan();
    List<String> streamed = new ArrayList<>();
    List<String> written = new ArrayList<>();
    try (TableCompactor compactor = table.newCompactor("compactor");
        TableWrite write = table.newWrite("w")) {
      TableCommit commit = table.newCommit("w");
      for (int c = 1; c <= 10; c++) {
        for (int i = 0; i < 5; i++) {
          write.write(GenericRow.of("w", c * 100L + i));
          written.add("w:" + (c * 100L + i));
        }
        commit.commit(c, write.prepareCommit());
        compactor.compactOnce(c % 4 == 0);
        for (Optional<StreamTableScan.Changes> changes = stream.next();
            changes.isPresent();
            changes = stream.next()) {
          assertThat(changes.get().commitKind()).isEqualTo(CommitKind.APPEND);
          changes.get().rows().forEach(change -> streamed.add(text(change.row())));
        }
      }
    }
    assertThat(count(table, CommitKind.COMPACT)).isPositive();
    assertThat(streamed).containsExactlyInAnyOrderElementsOf(written);
    assertThat(rows(table)).containsExactlyInAnyOrderElementsOf(written);
  }

  @Test
  void replacedFilesStayWhileASnapshotNamesThemAndExpirationDeletesThem() throws Exception {
    FileStoreTable table =
        TestTables.appendTable(
            dir,
            Map.of(
                "write-only", "true",
                "snapshot.num-retained.min", "1",
                "snapshot.time-retained", "1 ms"));
    List<String> written = appendBatches(table, "w", 6, 5);
    Set<String> inputs = live(table).keySet();
    try (TableCompactor compactor = table.newCompactor("compactor")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    Set<String> outputs = live(table).keySet();
    assertThat(outputs).hasSize(1).doesNotContainAnyElementsOf(inputs);
    // The replaced files are still named by snapshots 1..6: orphan removal keeps them.
    OrphanReport orphans = new OrphanFilesCleaner(table, Duration.ZERO, false).clean();
    assertThat(orphans.removed()).isEmpty();
    for (String f : inputs) {
      assertThat(table.fileIO().exists(table.bucketPath("", 0).child(f))).isTrue();
    }
    assertThat(table.newRead().readAll(table.newScan().withSnapshot(6).plan())).hasSize(30);
    Thread.sleep(5); // past the 1 ms retention of every snapshot but the latest
    ExpireReport report = new dev.lockstep.engine.maintenance.SnapshotExpiration(table).expire();
    assertThat(report.expiredSnapshots()).isEqualTo(6);
    for (String f : inputs) {
      assertThat(table.fileIO().exists(table.bucketPath("", 0).child(f)))
          .as("%s deleted by expiration", f)
          .isFalse();
    }
    for (String f : outputs) {
      assertThat(table.fileIO().exists(table.bucketPath("", 0).child(f))).isTrue();
    }
    assertThat(rows(table)).isEqualTo(written);
    assertThat(new OrphanFilesCleaner(table, Duration.ZERO, false).clean().removed()).isEmpty();
  }

  @Test
  void aCompactionWhoseInputsAnotherCompactionReplacedIsDropped() throws Exception {
    FileStoreTable table =
        TestTables.appendTable(dir, Map.of("compaction.min.file-num", "3", "write-only", "true"));
    List<String> written = appendBatches(table, "w", 6, 5);
    // Two writers compact the same files from the same snapshot.
    try (TableWrite first = table.newWrite("c1");
        TableWrite second = table.newWrite("c2")) {
      first.compact(false);
      second.compact(false);
      List<CommitMessage> one = first.prepareCommit();
      List<CommitMessage> two = second.prepareCommit();
      assertThat(one).singleElement().satisfies(m -> assertThat(m.compactBefore()).hasSize(6));
      assertThat(two).singleElement().satisfies(m -> assertThat(m.compactBefore()).hasSize(6));
      CommitResult won = table.newCommit("c1").commit(1, one);
      assertThat(won.compactSnapshotId()).isPositive();
      CommitResult lost = table.newCommit("c2").commit(1, two);
      assertThat(lost.compactSnapshotId()).isEqualTo(-1);
      assertThat(lost.droppedCompactions()).hasSize(1);
      for (var f : two.get(0).compactAfter()) {
        assertThat(table.fileIO().exists(table.bucketPath("", 0).child(f.fileName())))
            .as("the dropped compaction's output is deleted")
            .isFalse();
      }
    }
    assertThat(rows(table)).isEqualTo(written);
    assertThat(live(table)).hasSize(1);
  }

  @Test
  void anOverwriteAndACompactionThatRaceLeaveExactlyTheOverwrite() throws Exception {
    FileStoreTable table =
        TestTables.appendTable(dir, Map.of("compaction.min.file-num", "3", "write-only", "true"));
    appendBatches(table, "w", 6, 5);

    // 1. The compaction lands between the overwrite's base and its commit: the overwrite re-plans
    // and replaces the compaction's output too.
    List<CommitMessage> overwrite = overwriteRows(table, "o1", 7);
    try (TableCompactor compactor = table.newCompactor("compactor")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    table.newCommit("o1").overwrite(1, p -> true, overwrite);
    assertThat(rows(table)).containsExactly("o1:7");

    // 2. The overwrite lands between the compaction's pick and its commit: the compaction is
    // dropped, its inputs are gone.
    appendBatches(table, "w2", 6, 5);
    try (TableWrite compacting = table.newWrite("c")) {
      compacting.compact(true);
      List<CommitMessage> compaction = compacting.prepareCommit();
      assertThat(compaction)
          .singleElement()
          .satisfies(m -> assertThat(m.compactAfter()).isNotEmpty());
      table.newCommit("o2").overwrite(1, p -> true, overwriteRows(table, "o2", 8));
      CommitResult result = table.newCommit("c").commit(1, compaction);
      assertThat(result.compactSnapshotId()).isEqualTo(-1);
      assertThat(result.droppedCompactions()).hasSize(1);
    }
    assertThat(rows(table)).containsExactly("o2:8");
  }

  private static List<CommitMessage> overwriteRows(FileStoreTable table, String user, long n)
      throws Exception {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(user, n));
      return write.prepareCommit();
    }
  }

  /** Every split of the latest snapshot, as rows. */
  static List<List<String>> splits(FileStoreTable table) throws Exception {
    List<List<String>> splits = new ArrayList<>();
    for (Split split : table.newScan().plan().splits()) {
      splits.add(
          table.newRead().read(split).stream().map(AppendCompactionTableTest::text).toList());
    }
    return splits;
  }
}
