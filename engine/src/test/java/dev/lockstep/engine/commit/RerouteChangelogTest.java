package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic buckets with a changelog producer: an APPEND whose keys another writer assigned to other
 * buckets meanwhile re-routes those keys' rows (KeyRerouter) and still commits its changelog. With
 * {@code input} the messages' changelog files go into the snapshot that lands (the re-routed
 * messages keep them; before the fix they were dropped, so a stream never saw the batch's changes
 * and the changelog files were left unreferenced), and the changelog list of the round that met the
 * conflict is deleted; with {@code lookup} the changelog is computed on the re-routed files. Real
 * local store; the other writer commits first.
 */
class RerouteChangelogTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable table(String producer) throws IOException {
    return table(new LocalFileIO(), producer);
  }

  private FileStoreTable table(dev.lockstep.fs.FileIO io, String producer) throws IOException {
    // One key per bucket: a writer puts its first new key into bucket 0, its second into 1.
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of())
        .createTable(
            new Identifier("db", "kv"),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .option("bucket", "-1")
                .option("dynamic-bucket.target-row-num", "1")
                .option("changelog-producer", producer)
                .build());
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

  /** The changelog rows of snapshot {@code id}, as "kind key value". */
  private static List<String> changelog(FileStoreTable table, long id) throws IOException {
    StreamTableScan stream = table.copyWithOptions(Map.of("scan.snapshot-id", "1")).newStreamScan();
    for (Optional<Changes> c = stream.next(); c.isPresent(); c = stream.next()) {
      if (c.get().snapshotId() == id) {
        List<String> rows = new ArrayList<>();
        for (StreamTableScan.Change change : c.get().rows()) {
          rows.add(
              change.kind().shortString() + " " + change.row().get(0) + " " + change.row().get(1));
        }
        return rows;
      }
    }
    throw new AssertionError("no snapshot " + id + " in the stream");
  }

  private static List<String> unreferenced(FileStoreTable table) throws Exception {
    // A guard of 0 still keeps a file written in this very millisecond.
    Thread.sleep(5);
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    return report.removed().stream().map(OrphanReport.RemovedFile::path).toList();
  }

  /**
   * "c" on the empty base puts key 7 into bucket 0 and 8 into bucket 1; "a" on the same base puts 1
   * into bucket 0 and 7 into bucket 1 and commits first: c's key 7 moves to bucket 1.
   */
  private static TableCommit rerouted(FileStoreTable table) throws IOException {
    List<CommitMessage> ours = written(table, "c", 7, 8);
    assertThat(ours).extracting(CommitMessage::bucket).containsExactlyInAnyOrder(0, 1);
    table.newCommit("a").commit(1, written(table, "a", 1, 7));
    TableCommit commit = table.newCommit("c");
    assertThat(commit.commit(1, ours).dataSnapshotId()).isEqualTo(2);
    assertThat(commit.indexConflicts()).isEqualTo(1);
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "a1", 7, "c7", 8, "c8"));
    return commit;
  }

  @Test
  void aReroutedInputCommitKeepsItsChangelogFiles() throws Exception {
    FileStoreTable table = table("input");
    rerouted(table);

    assertThat(changelog(table, 2)).containsExactlyInAnyOrder("+I 7 c7", "+I 8 c8");
    assertThat(unreferenced(table))
        .as("the changelog files are in snapshot 2; the first round's list is deleted")
        .isEmpty();
  }

  @Test
  void aReroutedLookupCommitComputesItsChangelogOnTheReroutedFiles() throws Exception {
    FileStoreTable table = table("lookup");
    rerouted(table);

    assertThat(changelog(table, 2)).containsExactlyInAnyOrder("-U 7 a7", "+U 7 c7", "+I 8 c8");
    assertThat(unreferenced(table)).isEmpty();
  }

  /**
   * The key-hash conflict is found only after our first attempt computed its changelog: "c" loses
   * snapshot 1 to "a" (which put c's key 7 into bucket 1) while publishing, and its catch-up meets
   * a's assignment. The changelog files and list computed for that attempt are deleted with the
   * round (its {@code finally}); the re-routed round computes its own on a's snapshot.
   */
  @Test
  void aLookupChangelogComputedBeforeTheConflictIsDeletedWithItsRound() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = table(io, "lookup");
    // The other writer is another process: it does not wait for our in-process turn.
    FileStoreTable theirs =
        new FileSystemCatalog(
                new LocalFileIO(),
                Path.of(dir.toString()),
                Map.of("commit.in-process-turns", "false"))
            .getTable(new Identifier("db", "kv"));
    List<CommitMessage> ourMessages = written(ours, "c", 7, 8);
    List<CommitMessage> theirMessages = written(theirs, "a", 1, 7);
    AtomicBoolean raced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && raced.compareAndSet(false, true)) {
            assertThat(theirs.newCommit("a").commit(1, theirMessages).dataSnapshotId())
                .isEqualTo(1);
          }
        });
    TableCommit commit = ours.newCommit("c");

    assertThat(commit.commit(1, ourMessages).dataSnapshotId()).isEqualTo(2);

    assertThat(raced).isTrue();
    assertThat(commit.indexConflicts()).isEqualTo(1);
    assertThat(TestTables.readKeyValues(ours)).isEqualTo(Map.of(1, "a1", 7, "c7", 8, "c8"));
    assertThat(changelog(ours, 2)).containsExactlyInAnyOrder("-U 7 a7", "+U 7 c7", "+I 8 c8");
    assertThat(unreferenced(ours))
        .as("the changelog computed for the first round's attempt is deleted")
        .isEmpty();
  }
}
