package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
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
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files of a {@code lookup} changelog that no snapshot names are deleted (LookupChangelog,
 * TableCommit.commitAppends): when a twin (same commit user, identifier and messages) lands the
 * commit while ours loses a race, ours deletes the changelog list, manifest and files it computed
 * and the stream reads the twin's rows once; when writing the changelog of the second bucket fails,
 * the first bucket's changelog file is deleted too. Real local store; the twin commits through a
 * second table object, the failure comes from FaultInjectingStore.
 */
class LookupChangelogCleanUpTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "kv");

  private FileSystemCatalog catalog(FileIO io) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private FileStoreTable create(String buckets) throws IOException {
    return catalog(new LocalFileIO())
        .createTable(
            ID,
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .option("bucket", buckets)
                .option("changelog-producer", "lookup")
                .build());
  }

  private static void commit(FileStoreTable table, String user, long identifier, int... keys)
      throws IOException {
    table.newCommit(user).commit(identifier, written(table, user, keys));
  }

  private static List<CommitMessage> written(FileStoreTable table, String user, int... keys)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      for (int k : keys) {
        write.write(GenericRow.of(k, user));
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

  /** Files no snapshot references, as relative paths. */
  private static List<String> unreferenced(FileStoreTable table) throws Exception {
    // A guard of 0 still keeps a file written in this very millisecond.
    Thread.sleep(5);
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    return report.removed().stream().map(OrphanReport.RemovedFile::path).toList();
  }

  @Test
  void aLookupCommitThatATwinLandedDeletesItsOwnChangelog() throws Exception {
    FileStoreTable other = create("1");
    commit(other, "other", 1, 1);
    assertThat(unreferenced(other)).isEmpty();
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable first = catalog(store).getTable(ID);
    FileStoreTable twin = catalog(new LocalFileIO()).getTable(ID);
    List<CommitMessage> messages = written(first, "job", 1, 100);
    // Right before our snapshot 2 lands: another writer takes 2 and the twin commits the same
    // messages as 3; our attempt conflicts and the catch-up finds the twin's snapshot.
    AtomicBoolean once = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().startsWith("snapshot-") && once.compareAndSet(false, true)) {
            commit(other, "other", 2, 2);
            assertThat(twin.newCommit("job").commit(7, messages).dataSnapshotId()).isEqualTo(3);
          }
        });

    CommitResult result = first.newCommit("job").commit(7, messages);

    assertThat(once).isTrue();
    assertThat(result.dataSnapshotId()).isEqualTo(3);
    assertThat(changelog(other, 3)).containsExactly("-U 1 other", "+U 1 job", "+I 100 job");
    assertThat(unreferenced(other))
        .as("our changelog list, manifest and changelog file are deleted")
        .isEmpty();
  }

  @Test
  void aFailedChangelogOfTheSecondBucketDeletesTheFirstBucketsChangelogFile() throws Exception {
    FileStoreTable other = create("2");
    commit(other, "other", 1, 1, 2, 3, 4, 5, 6);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages = written(ours, "ours", 1, 2, 3, 4, 5, 6);
    assertThat(messages).extracting(CommitMessage::bucket).containsExactlyInAnyOrder(0, 1);
    // The first changelog file is written, the second one's write fails.
    AtomicInteger changelogWrites = new AtomicInteger();
    io.failNextMatching(
        Operation.WRITE,
        p -> p.name().startsWith("changelog-") && changelogWrites.incrementAndGet() == 2,
        Fault.FAIL_BEFORE_LANDING,
        1);

    assertThatThrownBy(() -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(IOException.class);
    io.clearFaults();

    assertThat(changelogWrites).hasValue(2);
    assertThat(ours.snapshotManager().latestId().getAsLong()).isEqualTo(1);
    assertThat(unreferenced(ours))
        .as("no changelog file is left behind")
        .noneMatch(p -> p.contains("changelog-"));
    // The same messages commit later, with their changelog.
    assertThat(ours.newCommit("ours").commit(1, messages).dataSnapshotId()).isEqualTo(2);
    assertThat(changelog(ours, 2)).hasSize(12);
  }

  @Test
  void aLookupCommitWithoutChangesNamesAnEmptyChangelogList() throws Exception {
    FileStoreTable table = create("1");
    commit(table, "w", 1, 1);
    // A delete of a key the table does not hold: no changelog row, but a list that says so (a
    // stream must not read the snapshot's files as upserts).
    try (TableWrite write = table.newWrite("w")) {
      write.write(dev.lockstep.engine.data.RowKind.DELETE, GenericRow.of(5, null));
      assertThat(table.newCommit("w").commit(2, write.prepareCommit()).dataSnapshotId())
          .isEqualTo(2);
    }
    dev.lockstep.engine.snapshot.Snapshot s = table.snapshotManager().get(2);
    assertThat(s.changelogManifestList()).isNotNull();
    assertThat(s.changelogRecordCount()).isZero();
    assertThat(unreferenced(table)).isEmpty();
  }
}
