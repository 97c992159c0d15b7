package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AppendTableTest {

  @TempDir Path dir;

  private FileStoreTable partitioned() throws Exception {
    return TestTables.catalog(dir)
        .createTable(
            new Identifier("db", "events"),
            Schema.newBuilder()
                .column("day", DataType.date())
                .column("id", DataType.bigint())
                .column("payload", DataType.string())
                .partitionKeys("day")
                .option("bucket", "2")
                .option("target-file-size", "4 kb")
                .build());
  }

  @Test
  void writeCommitAndReadWithRollingFilesFiltersAndProjection() throws Exception {
    FileStoreTable table = partitioned();
    LocalDate d1 = LocalDate.of(2024, 5, 1);
    LocalDate d2 = LocalDate.of(2024, 5, 2);
    try (TableWrite write = table.newWrite("job-1")) {
      for (long i = 0; i < 8000; i++) {
        write.write(GenericRow.of(i % 2 == 0 ? d1 : d2, i, java.util.UUID.randomUUID().toString()));
      }
      List<CommitMessage> messages = write.prepareCommit();
      assertThat(messages).hasSize(4);
      assertThat(messages.stream().mapToInt(m -> m.newFiles().size()).sum())
          .as("rolling at 4 kb")
          .isGreaterThan(4);
      CommitResult result = table.newCommit("job-1").commit(1, messages);
      assertThat(result.dataSnapshotId()).isEqualTo(1);
    }
    Snapshot snapshot = table.snapshotManager().latest().orElseThrow();
    assertThat(snapshot.commitKind()).isEqualTo(CommitKind.APPEND);
    assertThat(snapshot.totalRecordCount()).isEqualTo(8000);
    assertThat(snapshot.commitUser()).isEqualTo("job-1");

    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(8000);
    TableScan.Plan day1 = table.newScan().withPartition(Map.of("day", d1)).plan();
    List<GenericRow> rows = table.newRead().withProjection("id").readAll(day1);
    assertThat(rows)
        .hasSize(4000)
        .allSatisfy(
            r -> {
              assertThat(r.size()).isEqualTo(1);
              assertThat((Long) r.get(0) % 2).isZero();
            });
    assertThat(table.path().toString()).endsWith("db.db/events");
    assertThat(table.fileIO().exists(table.bucketPath("day=2024-05-01", 0))).isTrue();
  }

  @Test
  void commitMessagesTravelSerializedToAnotherCommitter() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, Map.of());
    byte[] wire;
    try (TableWrite write = table.newWrite("remote-writer")) {
      write.write(GenericRow.of("remote", 1L));
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
        out.writeObject(new java.util.ArrayList<>(write.prepareCommit()));
      }
      wire = bytes.toByteArray();
    }
    @SuppressWarnings("unchecked")
    List<CommitMessage> received =
        (List<CommitMessage>)
            new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(wire)).readObject();
    assertThat(table.newCommit("remote-writer").commit(1, received).dataSnapshotId()).isEqualTo(1);
    assertThat(table.newRead().readAll(table.newScan().plan()))
        .containsExactly(GenericRow.of("remote", 1L));
  }

  @Test
  void timeTravelReadsAnOlderSnapshot() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, Map.of());
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      for (long c = 1; c <= 3; c++) {
        write.write(GenericRow.of("u", c));
        commit.commit(c, write.prepareCommit());
      }
    }
    assertThat(table.newRead().readAll(table.newScan().withSnapshot(2).plan())).hasSize(2);
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(3);
  }

  @Test
  void reCommittingAnIdentifierIsANoOpAlsoForAFreshCommitter() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, Map.of());
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of("u", 1L));
      List<CommitMessage> first = write.prepareCommit();
      TableCommit commit = table.newCommit("u");
      assertThat(commit.commit(7, first).alreadyCommitted()).isFalse();
      assertThat(commit.commit(7, first).alreadyCommitted()).isTrue();
      write.write(GenericRow.of("u", 2L));
      commit.commit(8, write.prepareCommit());
      // Another user's commits in between do not matter.
      table.newCommit("other").commit(7, List.of());
      TableCommit restarted = table.newCommit("u");
      assertThat(restarted.commit(7, first).alreadyCommitted()).isTrue();
      assertThat(restarted.isCommitted(8)).isTrue();
      assertThat(restarted.isCommitted(9)).isFalse();
    }
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(2);
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(2);
  }

  @Test
  void abortDeletesTheFilesOfABatchNeverCommittedButKeepsCommittedOnes() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, Map.of());
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of("u", 1L));
      List<CommitMessage> committed = write.prepareCommit();
      TableCommit commit = table.newCommit("u");
      commit.commit(1, committed);
      assertThat(commit.abort(1, committed)).isZero();
      write.write(GenericRow.of("u", 2L));
      List<CommitMessage> abandoned = write.prepareCommit();
      assertThat(commit.abort(2, abandoned)).isEqualTo(1);
      assertThat(
              table
                  .fileIO()
                  .exists(
                      table.bucketPath("", 0).child(abandoned.get(0).newFiles().get(0).fileName())))
          .isFalse();
    }
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(1);
  }

  @Test
  void aMessageWithAnotherBucketCountIsRefused() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, Map.of());
    CommitMessage foreign = new CommitMessage("", 0, 3, List.of(), List.of(), List.of(), 0);
    assertThatThrownBy(() -> table.newCommit("u").commit(1, List.of(foreign)))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("3 buckets");
  }

  @Test
  void badRowsAreRefusedNamingTheColumn() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, Map.of());
    try (TableWrite write = table.newWrite("u")) {
      assertThatThrownBy(() -> write.write(GenericRow.of("u", 1)))
          .hasMessageContaining("Column 'n' is BIGINT and takes a Long, not a Integer");
      assertThatThrownBy(() -> write.write(GenericRow.of("u")))
          .hasMessageContaining("has 2 values [writer, n]");
    }
  }

  @Test
  void overwriteReplacesOnlyItsPartitionsAndRefusesUnseenConcurrentData() throws Exception {
    FileStoreTable table = partitioned();
    LocalDate d1 = LocalDate.of(2024, 5, 1);
    LocalDate d2 = LocalDate.of(2024, 5, 2);
    TableCommit commit = table.newCommit("loader");
    try (TableWrite write = table.newWrite("loader")) {
      write.write(GenericRow.of(d1, 1L, "old"));
      write.write(GenericRow.of(d2, 2L, "old"));
      commit.commit(1, write.prepareCommit());
    }
    TableWrite overwriter = table.newWrite("batch");
    overwriter.write(GenericRow.of(d1, 10L, "new"));
    List<CommitMessage> overwrite = overwriter.prepareCommit();

    // A streaming job adds to day 1 after the overwrite's base snapshot.
    try (TableWrite stream = table.newWrite("stream")) {
      stream.write(GenericRow.of(d1, 3L, "late"));
      table.newCommit("stream").commit(1, stream.prepareCommit());
    }
    TableCommit batch = table.newCommit("batch");
    assertThatThrownBy(() -> batch.overwrite(1, null, overwrite))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("Overwrite conflict");

    overwriter.write(GenericRow.of(d1, 11L, "new"));
    CommitResult result = batch.overwrite(2, null, overwriter.prepareCommit());
    overwriter.close();
    assertThat(table.snapshotManager().get(result.dataSnapshotId()).commitKind())
        .isEqualTo(CommitKind.OVERWRITE);
    List<GenericRow> rows = table.newRead().readAll(table.newScan().plan());
    assertThat(rows)
        .extracting(r -> r.get(1) + ":" + r.get(2))
        .containsExactlyInAnyOrder("11:new", "2:old");
  }
}
