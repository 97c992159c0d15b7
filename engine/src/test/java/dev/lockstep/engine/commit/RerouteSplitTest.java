package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic buckets: how {@link KeyRerouter} splits a commit's files when another writer assigned
 * some of its new keys to other buckets first. A key moved into bucket 0 (the smallest bucket id)
 * moves like any other; a file holding a key that moves and a key that stays is split, and the
 * message keeps the assignment of the key that stays, so a later writer updates that key in its
 * bucket. Each key is then read once (TestTables.readKeyValues fails on a key read twice). Real
 * local store; the other writer commits first.
 */
class RerouteSplitTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable table(int targetRows) throws IOException {
    return TestTables.keyValueTable(
        dir, Map.of("bucket", "-1", "dynamic-bucket.target-row-num", Integer.toString(targetRows)));
  }

  private static List<CommitMessage> written(FileStoreTable table, String user, int... keys)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      for (int k : keys) {
        write.write(GenericRow.of(k, user + k));
      }
      return write.prepareCommit();
    }
  }

  @Test
  void aKeyAnotherWriterPutIntoBucketZeroMovesThere() throws Exception {
    FileStoreTable table = table(1);
    // "c" on the empty base: key 1 into bucket 0, key 7 into bucket 1; "a" puts 7 into bucket 0
    // and commits first.
    List<CommitMessage> ours = written(table, "c", 1, 7);
    assertThat(ours).extracting(CommitMessage::bucket).containsExactlyInAnyOrder(0, 1);
    List<CommitMessage> theirs = written(table, "a", 7);
    assertThat(theirs).singleElement().satisfies(m -> assertThat(m.bucket()).isZero());
    table.newCommit("a").commit(1, theirs);

    TableCommit commit = table.newCommit("c");
    assertThat(commit.commit(1, ours).dataSnapshotId()).isEqualTo(2);

    assertThat(commit.indexConflicts()).isEqualTo(1);
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "c1", 7, "c7"));
    // A later writer finds key 7 in bucket 0 and updates it there.
    table.newCommit("d").commit(1, written(table, "d", 7));
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "c1", 7, "d7"));
  }

  @Test
  void aFileWithAKeyThatMovesAndAKeyThatStaysIsSplitAndKeepsTheStayingAssignment()
      throws Exception {
    FileStoreTable table = table(2);
    // "c" on the empty base: keys 7 and 8 into bucket 0 (one file); "a" on the same base puts 5
    // and 6 into bucket 0 and 7 into bucket 1, and commits first: c's 7 moves, 8 stays.
    List<CommitMessage> ours = written(table, "c", 7, 8);
    assertThat(ours).singleElement().satisfies(m -> assertThat(m.newFiles()).hasSize(1));
    table.newCommit("a").commit(1, written(table, "a", 5, 6, 7));

    TableCommit commit = table.newCommit("c");
    commit.commit(1, ours);

    assertThat(commit.indexConflicts()).isEqualTo(1);
    assertThat(TestTables.readKeyValues(table))
        .isEqualTo(Map.of(5, "a5", 6, "a6", 7, "c7", 8, "c8"));
    // Key 8's assignment to bucket 0 was committed: a later writer updates it in place.
    table.newCommit("d").commit(1, written(table, "d", 8, 7));
    assertThat(TestTables.readKeyValues(table))
        .isEqualTo(Map.of(5, "a5", 6, "a6", 7, "d7", 8, "d8"));
  }

  @Test
  void aSplitMessageKeepsExactlyTheAssignmentsOfItsStayingKeys() throws Exception {
    FileStoreTable table = table(3);
    // "c" on the empty base: keys 7, 8 and 9 into bucket 0; "a" on the same base puts 1, 2 and 3
    // into bucket 0 and 7 into bucket 1, and commits first: c's 7 moves, 8 and 9 stay.
    List<CommitMessage> ours = written(table, "c", 7, 8, 9);
    assertThat(ours).singleElement().satisfies(m -> assertThat(m.indexHashes()).hasSize(3));
    table.newCommit("a").commit(1, written(table, "a", 1, 2, 3, 7));

    table.newCommit("c").commit(1, ours);

    // The committed index: each of the six keys' hashes once, none added (a hash 0 of nobody).
    List<Integer> hashes = new java.util.ArrayList<>();
    java.util.Set<Integer> distinct = new java.util.HashSet<>();
    dev.lockstep.engine.snapshot.Snapshot latest = table.snapshotManager().latest().orElseThrow();
    for (dev.lockstep.engine.manifest.IndexFileMeta f :
        table.indexManifest().read(latest.indexManifest())) {
      for (int h : table.indexManifest().readHashes(f.fileName())) {
        hashes.add(h);
        distinct.add(h);
      }
    }
    assertThat(hashes).hasSize(6);
    assertThat(distinct).hasSize(6);
    assertThat(TestTables.readKeyValues(table))
        .isEqualTo(Map.of(1, "a1", 2, "a2", 3, "a3", 7, "c7", 8, "c8", 9, "c9"));
  }
}
