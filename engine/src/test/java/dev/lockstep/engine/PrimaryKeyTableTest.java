package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.compact.UniversalCompaction;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrimaryKeyTableTest {

  @TempDir Path dir;

  @Test
  void withinOneCommitTheLaterWriteWinsAcrossFlushes() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of("write-buffer-size", "1 kb"));
    try (TableWrite write = table.newWrite("u")) {
      for (int round = 0; round < 5; round++) {
        for (int k = 0; k < 50; k++) {
          write.write(GenericRow.of(k, "round-" + round));
        }
      }
      List<CommitMessage> messages = write.prepareCommit();
      assertThat(messages.get(0).newFiles())
          .as("the small buffer flushed often")
          .hasSizeGreaterThan(3);
      table.newCommit("u").commit(1, messages);
    }
    Map<Integer, String> content = TestTables.readKeyValues(table);
    assertThat(content).hasSize(50).containsValue("round-4").doesNotContainValue("round-3");
  }

  @Test
  void deletesHideOlderRowsAndFullCompactionDropsThem() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of());
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      for (int k = 0; k < 10; k++) {
        write.write(GenericRow.of(k, "v" + k));
      }
      commit.commit(1, write.prepareCommit());
      write.delete(GenericRow.of(3, null));
      write.delete(GenericRow.of(4, null));
      write.write(GenericRow.of(4, "back"));
      commit.commit(2, write.prepareCommit());
    }
    Map<Integer, String> expected = new HashMap<>();
    for (int k = 0; k < 10; k++) {
      expected.put(k, "v" + k);
    }
    expected.remove(3);
    expected.put(4, "back");
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
    try (TableCompactor compactor = table.newCompactor("c")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
    assertThat(table.snapshotManager().latest().orElseThrow().totalRecordCount())
        .as("the delete marker is gone after a full compaction")
        .isEqualTo(9);
  }

  @Test
  void theLaterCommitWinsWhicheverWriterFlushedFirst() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of());
    TableWrite early = table.newWrite("early");
    TableWrite late = table.newWrite("late");
    early.write(GenericRow.of(1, "flushed first, committed last"));
    early.flush();
    late.write(GenericRow.of(1, "flushed last, committed first"));
    List<CommitMessage> lateMessages = late.prepareCommit();
    List<CommitMessage> earlyMessages = early.prepareCommit();
    table.newCommit("late").commit(1, lateMessages);
    table.newCommit("early").commit(1, earlyMessages);
    assertThat(TestTables.readKeyValues(table)).containsEntry(1, "flushed first, committed last");

    // Compaction keeps that order, and a later commit still wins over compacted rows.
    TableCompactor compactor = table.newCompactor("compactor");
    assertThat(compactor.compactOnce(true)).isPresent();
    assertThat(TestTables.readKeyValues(table)).containsEntry(1, "flushed first, committed last");
    late.write(GenericRow.of(1, "newest"));
    table.newCommit("late").commit(2, late.prepareCommit());
    assertThat(compactor.compactOnce(true)).isPresent();
    assertThat(TestTables.readKeyValues(table)).containsExactlyEntriesOf(Map.of(1, "newest"));
    compactor.close();
    early.close();
    late.close();
  }

  @Test
  void aConflictingCompactionIsDroppedAndItsFilesDeletedWithoutAnException() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(dir, Map.of("num-sorted-run.compaction-trigger", "2"));
    Map<Integer, String> expected = new HashMap<>();
    TableWrite a = table.newWrite("a");
    TableWrite b = table.newWrite("b");
    TableCommit commitA = table.newCommit("a");
    TableCommit commitB = table.newCommit("b");
    for (int i = 0; i < 3; i++) {
      a.write(GenericRow.of(i, "a" + i));
      commitA.commit(i, a.prepareCommit());
      expected.put(i, "a" + i);
    }
    // Both writers compact the same three committed files.
    a.compact(true);
    b.compact(true);
    List<CommitMessage> fromA = a.prepareCommit();
    List<CommitMessage> fromB = b.prepareCommit();
    List<DataFileMeta> outputOfB = fromB.get(0).compactAfter();
    assertThat(commitA.commit(10, fromA).compactSnapshotId()).isPositive();
    CommitResult resultB = commitB.commit(10, fromB);
    assertThat(resultB.compactSnapshotId()).isEqualTo(-1);
    assertThat(resultB.droppedCompactions())
        .containsExactly(new dev.lockstep.engine.manifest.BucketId("", 0));
    assertThat(commitB.fileConflicts()).isEqualTo(1);
    for (DataFileMeta f : outputOfB) {
      assertThat(table.fileIO().exists(table.bucketPath("", 0).child(f.fileName()))).isFalse();
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);

    // Writer b keeps going: it reloads the bucket and compacts again from there.
    b.write(GenericRow.of(0, "b0"));
    expected.put(0, "b0");
    CommitResult next = commitB.commit(11, b.prepareCommit());
    assertThat(next.dataSnapshotId()).isPositive();
    // A compaction already running in the background is finished first; repeat until one run.
    for (long id = 12; table.newScan().plan().splits().get(0).files().size() > 1; id++) {
      assertThat(id).as("full compaction converges").isLessThan(16);
      b.compact(true);
      assertThat(commitB.commit(id, b.prepareCommit()).compactSnapshotId()).isPositive();
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
    a.close();
    b.close();
  }

  @Test
  void backgroundCompactionKeepsSortedRunsBoundedAndWriteOnlyNeverCompacts() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir, Map.of("num-sorted-run.compaction-trigger", "3", "compaction.max.thread", "2"));
    Map<Integer, String> expected = new HashMap<>();
    try (TableWrite write = table.newWrite("u")) {
      TableCommit commit = table.newCommit("u");
      for (int c = 0; c < 30; c++) {
        for (int k = c; k < c + 20; k++) {
          write.write(GenericRow.of(k, "c" + c));
          expected.put(k, "c" + c);
        }
        commit.commit(c, write.prepareCommit());
      }
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
    long compactions = countKind(table, CommitKind.COMPACT);
    assertThat(compactions).isPositive();
    List<DataFileMeta> files = table.newScan().plan().splits().get(0).files();
    assertThat(UniversalCompaction.sortedRuns(files).size())
        .isLessThanOrEqualTo(table.options().stopTrigger() + 1);

    FileStoreTable wo = table.copyWithOptions(Map.of("write-only", "true"));
    try (TableWrite write = wo.newWrite("wo")) {
      TableCommit commit = wo.newCommit("wo");
      for (int c = 0; c < 10; c++) {
        write.write(GenericRow.of(c, "wo"));
        commit.commit(c, write.prepareCommit());
      }
    }
    assertThat(countKind(table, CommitKind.COMPACT)).isEqualTo(compactions);
  }

  private static long countKind(FileStoreTable table, CommitKind kind) throws Exception {
    long count = 0;
    long latest = table.snapshotManager().latestId().getAsLong();
    for (long id = 1; id <= latest; id++) {
      if (table.snapshotManager().get(id).commitKind() == kind) {
        count++;
      }
    }
    return count;
  }
}
