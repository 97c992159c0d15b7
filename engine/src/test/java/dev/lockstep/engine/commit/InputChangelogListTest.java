package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
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
 * An {@code input} changelog list belongs to the snapshot that names it (TableCommit.commitAppends,
 * {@code keep}): when a twin (same commit user and identifier, same messages) lands the commit
 * while ours is losing a race, our call returns the twin's snapshot and deletes the changelog list
 * and manifest it wrote, which nothing names; the twin's list stays and a stream reads the rows
 * once. A commit that lands keeps its own list; a commit that fails without publishing deletes it;
 * an unknown outcome keeps it (the snapshot that may have landed names it). Real local store; the
 * twin commits at the exact moment through a second table object, faults come from
 * FaultInjectingStore.
 */
class InputChangelogListTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");

  private FileSystemCatalog catalog(dev.lockstep.fs.FileIO io) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private static void commit(FileStoreTable table, String user, long identifier, int key)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(key, user));
      table.newCommit(user).commit(identifier, write.prepareCommit());
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

  /** Files no snapshot references (manifests, lists, data and changelog files). */
  private static List<String> unreferenced(FileStoreTable table) throws Exception {
    // A guard of 0 still keeps a file written in this very millisecond.
    Thread.sleep(5);
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    return report.removed().stream().map(OrphanReport.RemovedFile::path).toList();
  }

  private FileStoreTable create() throws IOException {
    return catalog(new LocalFileIO())
        .createTable(
            ID,
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .option("changelog-producer", "input")
                .build());
  }

  @Test
  void aCommitThatATwinLandedDeletesItsOwnChangelogListAndKeepsTheTwins() throws Exception {
    FileStoreTable other = create();
    commit(other, "other", 1, 1);
    assertThat(unreferenced(other)).isEmpty();
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable first = catalog(store).getTable(ID);
    FileStoreTable twin = catalog(new LocalFileIO()).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = first.newWrite("job")) {
      write.write(GenericRow.of(100, "job"));
      messages = write.prepareCommit();
    }
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
    assertThat(changelog(other, 3)).containsExactly("+I 100 job");
    assertThat(unreferenced(other)).as("our changelog list and manifest are deleted").isEmpty();

    // Our next commit lands itself and keeps its list.
    try (TableWrite write = first.newWrite("job")) {
      write.write(GenericRow.of(101, "job"));
      assertThat(first.newCommit("job").commit(8, write.prepareCommit()).dataSnapshotId())
          .isEqualTo(4);
    }
    assertThat(changelog(other, 4)).containsExactly("+I 101 job");
    assertThat(unreferenced(other)).isEmpty();
  }

  @Test
  void aFailedCommitDeletesItsChangelogListAndAnUnknownOutcomeKeepsIt() throws Exception {
    FileStoreTable other = create();
    commit(other, "other", 1, 1);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(1, "c"));
      messages = write.prepareCommit();
    }
    List<String> callers = new ArrayList<>();
    messages.get(0).newFiles().forEach(f -> callers.add(f.fileName()));
    messages.get(0).changelogFiles().forEach(f -> callers.add(f.fileName()));
    assertThat(messages.get(0).changelogFiles()).isNotEmpty();
    // Every create of snapshot-2 fails before landing: nothing is published.
    io.failNextMatching(
        Operation.CREATE,
        p -> p.name().equals("snapshot-2"),
        dev.lockstep.conformance.FaultPlan.Fault.FAIL_BEFORE_LANDING,
        3);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(dev.lockstep.commit.CleanableFailure.class);
    io.clearFaults();
    assertThat(unreferenced(ours))
        .as(
            "the changelog list, its manifest and the delta are deleted; the files are the caller's")
        .allMatch(p -> callers.stream().anyMatch(p::endsWith))
        .hasSize(2);

    // The snapshot lands but its answer and the read-back are lost: the outcome is unknown, and
    // the changelog list (named by the snapshot that landed) is kept.
    io.failNextMatching(
        Operation.CREATE,
        p -> p.name().equals("snapshot-2"),
        dev.lockstep.conformance.FaultPlan.Fault.LOSE_ANSWER_AFTER_LANDING,
        1);
    io.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().equals("snapshot-2")) {
            io.failNextMatching(
                Operation.READ,
                p -> p.equals(path),
                dev.lockstep.conformance.FaultPlan.Fault.FAIL_BEFORE_LANDING,
                10);
          }
        });
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(dev.lockstep.commit.CommitStateUnknownException.class);
    io.clearFaults();
    assertThat(unreferenced(ours)).isEmpty();
    assertThat(changelog(ours, 2)).containsExactly("+I 1 c");
  }
}
