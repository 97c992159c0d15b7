package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.store.MissingDataFiles;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checks {@link TableCommit#overwrite} makes before it deletes anything, on a real local store:
 * the early check refuses an overwrite whose partitions another writer appended to after the
 * overwrite's base (that data would be deleted unseen), but not one whose other partitions changed;
 * an identifier already committed is a no-op that deletes nothing written since; a message with
 * another bucket count is refused (in {@link TableCommit#commit} too), as is an overwrite that
 * would carry forward a reference to a data file a read found missing outside the partitions it
 * replaces. Found unchecked by mutation testing (engine/README.md, "Mutation testing").
 */
class OverwriteEdgesTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable partitioned(Map<String, String> options) throws IOException {
    return new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of())
        .createTable(
            new Identifier("db", "t"),
            Schema.newBuilder()
                .column("p", DataType.intType())
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .partitionKeys("p")
                .primaryKey("p", "k")
                .options(options)
                .build());
  }

  private static List<CommitMessage> written(FileStoreTable table, String user, GenericRow... rows)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      for (GenericRow row : rows) {
        write.write(row);
      }
      return write.prepareCommit();
    }
  }

  private static List<String> rows(FileStoreTable table) throws IOException {
    List<String> out = new ArrayList<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      out.add(row.get(0) + "/" + row.get(1) + "=" + row.get(2));
    }
    return out;
  }

  /** Files no snapshot references, as relative paths. */
  static List<String> unreferenced(FileStoreTable table) throws Exception {
    // A guard of 0 still keeps a file written in this very millisecond.
    Thread.sleep(5);
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    return report.removed().stream().map(OrphanReport.RemovedFile::path).toList();
  }

  @Test
  void anAppendToAnOverwrittenPartitionAfterTheBaseStopsTheOverwrite() throws Exception {
    FileStoreTable table = partitioned(Map.of());
    table.newCommit("loader").commit(1, written(table, "loader", GenericRow.of(1, 1, "old")));
    // The overwrite's messages are based on snapshot 1.
    List<CommitMessage> messages = written(table, "batch", GenericRow.of(1, 100, "new"));
    assertThat(messages).extracting(CommitMessage::baseSnapshotId).containsOnly(1L);
    // Then another writer appends to the partition the overwrite replaces: snapshot 2, the latest
    // when the overwrite plans (the commit loop checks only what lands after that).
    table.newCommit("late").commit(1, written(table, "late", GenericRow.of(1, 5, "late")));

    TableCommit batch = table.newCommit("batch");
    assertThatThrownBy(() -> batch.overwrite(1, null, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("Overwrite conflict: snapshot 2 (APPEND by late)")
        .hasMessageContaining("to partition 'p=1' after the overwrite's base snapshot");

    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(2);
    assertThat(rows(table)).containsExactlyInAnyOrder("1/1=old", "1/5=late");
    assertThat(batch.isCommitted(1)).isFalse();
  }

  @Test
  void anAppendToAnotherPartitionAfterTheBaseDoesNotStopTheOverwrite() throws Exception {
    FileStoreTable table = partitioned(Map.of());
    table
        .newCommit("loader")
        .commit(1, written(table, "loader", GenericRow.of(1, 1, "old"), GenericRow.of(2, 1, "a")));
    List<CommitMessage> messages = written(table, "batch", GenericRow.of(1, 100, "new"));
    table.newCommit("late").commit(1, written(table, "late", GenericRow.of(2, 5, "late")));
    table.newCommit("late").commit(2, written(table, "late", GenericRow.of(3, 5, "late")));

    CommitResult result = table.newCommit("batch").overwrite(1, null, messages);

    assertThat(result.dataSnapshotId()).isEqualTo(4);
    assertThat(table.snapshotManager().get(4).commitKind()).isEqualTo(CommitKind.OVERWRITE);
    assertThat(rows(table)).containsExactlyInAnyOrder("1/100=new", "2/1=a", "2/5=late", "3/5=late");
  }

  @Test
  void anOverwriteAlreadyCommittedIsANoOpThatDeletesNothingWrittenSince() throws Exception {
    FileStoreTable table = partitioned(Map.of());
    table.newCommit("loader").commit(1, written(table, "loader", GenericRow.of(1, 1, "old")));
    List<CommitMessage> messages = written(table, "batch", GenericRow.of(1, 100, "new"));
    TableCommit batch = table.newCommit("batch");
    assertThat(batch.overwrite(9, null, messages).dataSnapshotId()).isEqualTo(2);
    table.newCommit("late").commit(1, written(table, "late", GenericRow.of(1, 5, "late")));

    // The same overwrite again (a retried job): found in snapshot 2, nothing is done.
    CommitResult again = table.newCommit("batch").overwrite(9, null, messages);

    assertThat(again.alreadyCommitted()).isTrue();
    assertThat(again.dataSnapshotId()).isEqualTo(-1);
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(3);
    assertThat(rows(table)).containsExactlyInAnyOrder("1/100=new", "1/5=late");
    assertThat(unreferenced(table)).isEmpty();
  }

  @Test
  void aMessageWithAnotherBucketCountIsRefusedByOverwriteAndCommit() throws Exception {
    FileStoreTable table = partitioned(Map.of("bucket", "2"));
    table.newCommit("loader").commit(1, written(table, "loader", GenericRow.of(1, 1, "old")));
    List<CommitMessage> messages = new ArrayList<>();
    for (CommitMessage m : written(table, "batch", GenericRow.of(1, 100, "new"))) {
      assertThat(m.totalBuckets()).isEqualTo(2);
      // As a writer of the table with 3 buckets would have written it.
      messages.add(
          new CommitMessage(
              m.partition(),
              m.bucket(),
              3,
              m.newFiles(),
              m.compactBefore(),
              m.compactAfter(),
              m.baseSnapshotId()));
    }
    TableCommit batch = table.newCommit("batch");

    assertThatThrownBy(() -> batch.overwrite(1, null, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("was written with 3 buckets; the table has 2");
    assertThat(batch.fileConflicts()).isEqualTo(1);
    assertThatThrownBy(() -> batch.commit(1, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("was written with 3 buckets; the table has 2");
    assertThat(batch.fileConflicts()).isEqualTo(2);

    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(1);
    assertThat(rows(table)).containsExactly("1/1=old");
  }

  @Test
  void anOverwriteThatWouldCarryAMissingFileOfAnotherPartitionIsRefused() throws Exception {
    FileStoreTable table = partitioned(Map.of("write-only", "true"));
    table
        .newCommit("loader")
        .commit(1, written(table, "loader", GenericRow.of(1, 1, "old"), GenericRow.of(2, 1, "a")));
    ManifestEntry inTwo =
        table.store().liveFiles(table.snapshotManager().get(1)).values().stream()
            .filter(e -> e.partition().equals("p=2"))
            .findFirst()
            .orElseThrow();
    java.nio.file.Path missing =
        java.nio.file.Path.of(
            table
                .bucketPath(inTwo.partition(), inTwo.bucket())
                .child(inTwo.file().fileName())
                .pathPart());
    byte[] bytes = Files.readAllBytes(missing);
    Files.delete(missing);
    assertThatThrownBy(() -> rows(table)).isInstanceOf(IOException.class);
    assertThat(MissingDataFiles.of(table)).hasSize(1);
    List<CommitMessage> messages = written(table, "batch", GenericRow.of(1, 100, "new"));

    // Replacing p=1 would carry p=2's reference forward.
    assertThatThrownBy(() -> table.newCommit("batch").overwrite(1, null, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("Data file " + missing)
        .hasMessageContaining("snapshot 1 references it");
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(1);

    // Restored: the overwrite lands and the file is no longer noted missing.
    Files.write(missing, bytes);
    assertThat(table.newCommit("batch").overwrite(1, null, messages).dataSnapshotId()).isEqualTo(2);
    assertThat(MissingDataFiles.of(table)).isEmpty();
    assertThat(rows(table)).containsExactlyInAnyOrder("1/100=new", "2/1=a");
  }

  @Test
  void anOverwriteExpiresOldSnapshotsAndItsRetryAfterItsSnapshotExpiredIsANoOp() throws Exception {
    FileStoreTable table =
        partitioned(
            Map.of(
                "snapshot.num-retained.min", "1",
                "snapshot.num-retained.max", "1",
                "snapshot.time-retained", "1 h"));
    table.newCommit("loader").commit(1, written(table, "loader", GenericRow.of(1, 1, "old")));
    List<CommitMessage> messages = written(table, "batch", GenericRow.of(1, 100, "new"));
    TableCommit batch = table.newCommit("batch");

    assertThat(batch.overwrite(9, null, messages).dataSnapshotId()).isEqualTo(2);
    assertThat(table.snapshotManager().earliestId())
        .as("the overwrite expired snapshot 1")
        .hasValue(2);
    table.newCommit("late").commit(1, written(table, "late", GenericRow.of(2, 5, "late")));
    assertThat(table.snapshotManager().earliestId())
        .as("the overwrite's snapshot expired")
        .hasValue(3);

    // The same object asked again (a retried call) after its snapshot expired: a no-op.
    CommitResult again = batch.overwrite(9, null, messages);

    assertThat(again.alreadyCommitted()).isTrue();
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(3);
    assertThat(rows(table)).containsExactlyInAnyOrder("1/100=new", "2/5=late");
  }
}
