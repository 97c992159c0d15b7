package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code TableCommit.commit} call carrying two batches (two {@code prepareCommit}s of one
 * writer) of the same partition and bucket, as the Java API allows. Real local store, a
 * single-bucket primary-key table.
 *
 * <p>The second batch's compaction compacts the first batch's compaction output (the writer's view
 * counts a handed-out compaction as landed), so the two compactions form a chain: A, B → C, then C,
 * D → E. Every file of both messages must end up committed, or deleted when dropped: none may be
 * left unreferenced.
 */
class TwoBatchesOneCommitTest {

  @TempDir java.nio.file.Path dir;

  private static void commitRows(FileStoreTable table, long id, int from, int to, String v)
      throws Exception {
    try (TableWrite write = table.newWrite("loader")) {
      for (int k = from; k < to; k++) {
        write.write(GenericRow.of(k, v + k));
      }
      table.newCommit("loader").commit(id, write.prepareCommit());
    }
  }

  /** Unreferenced files under the table directory (a dry run of orphan removal, guard 0). */
  private static List<String> unreferenced(FileStoreTable table) throws Exception {
    // A guard of 0 still keeps a file written in this very millisecond.
    Thread.sleep(5);
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    return report.removed().stream().map(OrphanReport.RemovedFile::path).toList();
  }

  private static boolean exists(FileStoreTable table, CommitMessage m, DataFileMeta f)
      throws Exception {
    return table.fileIO().exists(table.bucketPath(m.partition(), m.bucket()).child(f.fileName()));
  }

  /**
   * Two batches of one writer, each with new rows and a full compaction of bucket 0; the second
   * compaction replaces the first one's output. Both returned.
   */
  private List<CommitMessage> twoChainedBatches(FileStoreTable table) throws Exception {
    commitRows(table, 1, 0, 10, "a");
    commitRows(table, 2, 5, 15, "b");
    List<CommitMessage> messages = new ArrayList<>();
    try (TableWrite write = table.newWrite("two")) {
      write.write(GenericRow.of(100, "first"));
      write.compact(true);
      messages.addAll(write.prepareCommit());
      // Another commit adds a file, so that the second batch's full compaction has two runs: the
      // first batch's output (not committed yet) and this file.
      commitRows(table, 3, 10, 20, "c");
      write.write(GenericRow.of(200, "second"));
      write.compact(true);
      messages.addAll(write.prepareCommit());
    }
    assertThat(messages).hasSize(2);
    assertThat(messages).extracting(CommitMessage::bucket).containsOnly(0);
    CommitMessage first = messages.get(0);
    CommitMessage second = messages.get(1);
    assertThat(first.compactAfter()).isNotEmpty();
    assertThat(second.compactBefore())
        .as("the second compaction replaces the first one's output")
        .containsAll(first.compactAfter());
    return messages;
  }

  @Test
  void chainedCompactionsOfTwoBatchesLandInOneCompactSnapshot() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of("bucket", "1"));
    List<CommitMessage> messages = twoChainedBatches(table);
    Map<Integer, String> expected = new TreeMap<>();
    for (int k = 0; k < 20; k++) {
      expected.put(k, (k < 5 ? "a" : k < 10 ? "b" : "c") + k);
    }
    expected.put(100, "first");
    expected.put(200, "second");

    CommitResult result = table.newCommit("two").commit(1, messages);

    assertThat(result.droppedCompactions()).isEmpty();
    assertThat(result.compactSnapshotId()).isPositive();
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
    for (DataFileMeta f : messages.get(0).compactAfter()) {
      assertThat(exists(table, messages.get(0), f))
          .as("the first compaction's output %s, replaced in the same commit, is deleted", f)
          .isFalse();
    }
    for (DataFileMeta f : messages.get(1).compactAfter()) {
      assertThat(exists(table, messages.get(1), f)).isTrue();
    }
    assertThat(unreferenced(table)).isEmpty();
  }

  @Test
  void aConflictDropsTheOutputsOfBothBatchesOfTheBucket() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of("bucket", "1"));
    List<CommitMessage> messages = twoChainedBatches(table);
    // Another writer compacts the bucket first: both our compactions conflict with it.
    try (TableWrite write = table.newWrite("winner")) {
      write.compact(true);
      table.newCommit("winner").commit(1, write.prepareCommit());
    }

    CommitResult result = table.newCommit("two").commit(1, messages);

    assertThat(result.compactSnapshotId()).isEqualTo(-1);
    assertThat(result.droppedCompactions()).hasSize(1);
    for (CommitMessage m : messages) {
      for (DataFileMeta f : m.compactAfter()) {
        assertThat(exists(table, m, f)).as("dropped compaction output %s", f).isFalse();
      }
    }
    assertThat(TestTables.readKeyValues(table))
        .containsEntry(100, "first")
        .containsEntry(200, "second");
    assertThat(unreferenced(table)).isEmpty();
  }

  @Test
  void abortDeletesTheFilesOfBothBatches() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of("bucket", "1"));
    List<CommitMessage> messages = twoChainedBatches(table);

    assertThat(table.newCommit("two").abort(1, messages)).isPositive();

    assertThat(unreferenced(table)).isEmpty();
  }

  /**
   * Dynamic buckets: the writer's second batch starts from the committed index again, so a key of
   * the first batch can be assigned to another bucket in the second (here: bucket 0 is full with
   * one hash). Committed together, the key would live in two buckets; the commit refuses the
   * batches instead (committed one by one, the second meets the first's assignment and re-routes).
   */
  @Test
  void aKeyAssignedToTwoBucketsByTwoBatchesOfOneCommitIsRefused() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir,
            Map.of(
                "bucket", "-1",
                "dynamic-bucket.target-row-num", "1",
                "dynamic-bucket.initial-buckets", "1"));
    List<CommitMessage> first;
    List<CommitMessage> second;
    try (TableWrite write = table.newWrite("two")) {
      write.write(GenericRow.of(1, "first"));
      first = write.prepareCommit();
      write.write(GenericRow.of(2, "x"));
      write.write(GenericRow.of(1, "second"));
      second = write.prepareCommit();
    }
    assertThat(first).extracting(CommitMessage::bucket).containsExactly(0);
    assertThat(second).extracting(CommitMessage::bucket).containsExactlyInAnyOrder(0, 1);
    List<CommitMessage> both = new ArrayList<>(first);
    both.addAll(second);

    TableCommit together = table.newCommit("two");
    assertThatThrownBy(() -> together.commit(1, both))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("two buckets");
    assertThat(table.snapshotManager().latest()).isEmpty();
    assertThat(unreferenced(table))
        .as("only the messages' own files, no index file of the failed commit")
        .allMatch(p -> p.contains("/bucket-"));

    // One batch per commit: the second re-routes key 1 into the first's bucket.
    TableCommit commit = table.newCommit("two");
    commit.commit(1, first);
    commit.commit(2, second);
    assertThat(TestTables.readKeyValues(table))
        .containsExactly(Map.entry(1, "second"), Map.entry(2, "x"));
    assertThat(unreferenced(table)).isEmpty();
  }

  /**
   * {@code changelog-producer = lookup}: the changelog of a commit carrying two batches of one
   * bucket is the change from the committed value to the last batch's value, once per key (not once
   * per batch against the same committed value).
   */
  @Test
  void theLookupChangelogOfTwoBatchesIsOneChangePerKey() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(dir, Map.of("bucket", "1", "changelog-producer", "lookup"));
    commitRows(table, 1, 1, 2, "a");
    List<CommitMessage> messages = new ArrayList<>();
    try (TableWrite write = table.newWrite("two")) {
      write.write(GenericRow.of(1, "b"));
      messages.addAll(write.prepareCommit());
      write.write(GenericRow.of(1, "c"));
      write.write(GenericRow.of(2, "x"));
      messages.addAll(write.prepareCommit());
    }
    assertThat(messages).hasSize(2);

    table.newCommit("two").commit(1, messages);

    dev.lockstep.engine.scan.StreamTableScan stream =
        table
            .copyWithOptions(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "2"))
            .newStreamScan();
    List<dev.lockstep.engine.scan.StreamTableScan.Change> rows = new ArrayList<>();
    for (var c = stream.next(); c.isPresent(); c = stream.next()) {
      rows.addAll(c.get().rows());
    }
    assertThat(rows)
        .containsExactlyInAnyOrder(
            new dev.lockstep.engine.scan.StreamTableScan.Change(
                dev.lockstep.engine.data.RowKind.UPDATE_BEFORE, GenericRow.of(1, "a1")),
            new dev.lockstep.engine.scan.StreamTableScan.Change(
                dev.lockstep.engine.data.RowKind.UPDATE_AFTER, GenericRow.of(1, "c")),
            new dev.lockstep.engine.scan.StreamTableScan.Change(
                dev.lockstep.engine.data.RowKind.INSERT, GenericRow.of(2, "x")));
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "c", 2, "x"));
    assertThat(unreferenced(table)).isEmpty();
  }
}
