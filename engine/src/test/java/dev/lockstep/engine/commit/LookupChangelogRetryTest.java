package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code lookup} changelog is computed against the exact base a commit lands on
 * (LookupChangelog): a commit that lost the race to a commit of the same keys computes it again on
 * the winner's snapshot, so each {@code -U}/{@code -D} carries the winner's value (the one a stream
 * consumer holds), not the value at the first base; the first attempt's changelog files are
 * deleted. A commit that fails without publishing deletes its changelog files; an unknown outcome
 * keeps them. Real local store; the winner commits at the exact moment through a second table
 * object.
 */
class LookupChangelogRetryTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "kv");

  private FileSystemCatalog catalog(FileIO io) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private FileStoreTable create() throws IOException {
    return catalog(new LocalFileIO())
        .createTable(
            ID,
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .option("changelog-producer", "lookup")
                .build());
  }

  private static void commit(FileStoreTable table, String user, long identifier, Object[]... rows)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      for (Object[] r : rows) {
        write.write(GenericRow.of(r[0], r[1]));
      }
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

  /** Files no snapshot references (manifests, lists, changelog files), as relative paths. */
  private static List<String> unreferenced(FileStoreTable table) throws Exception {
    // A guard of 0 still keeps a file written in this very millisecond.
    Thread.sleep(5);
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    return report.removed().stream().map(OrphanReport.RemovedFile::path).toList();
  }

  @Test
  void aCommitThatLostTheRaceToTheSameKeysComputesItsChangelogOnTheWinnersSnapshot()
      throws Exception {
    FileStoreTable others = create();
    commit(others, "others", 1, new Object[] {1, "a"}, new Object[] {2, "a"});
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(1, "c"));
      write.write(RowKind.DELETE, GenericRow.of(3, null));
      write.write(GenericRow.of(4, "c"));
      messages = write.prepareCommit();
    }
    // Right before our snapshot 2 lands, the winner updates key 1 and inserts keys 3 and 4: on
    // our first base, 1 was "a" and 3 and 4 did not exist.
    AtomicBoolean raced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-2") && raced.compareAndSet(false, true)) {
            commit(
                others,
                "others",
                2,
                new Object[] {1, "b"},
                new Object[] {3, "w"},
                new Object[] {4, "w"});
          }
        });

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(raced).isTrue();
    assertThat(result.retries()).isEqualTo(1);
    assertThat(result.dataSnapshotId()).isEqualTo(3);
    assertThat(changelog(ours, 2)).containsExactly("-U 1 a", "+U 1 b", "+I 3 w", "+I 4 w");
    assertThat(changelog(ours, 3))
        .containsExactly("-U 1 b", "+U 1 c", "-D 3 w", "-U 4 w", "+U 4 c");
    assertThat(unreferenced(ours)).as("the changelog of the first attempt is deleted").isEmpty();
  }

  @Test
  void aRaceLostToAnotherBucketKeepsTheChangelogOfTheFirstBase() throws Exception {
    // Two buckets: the winner writes only to the bucket of key 2, ours only to the bucket of key 1
    // (checked below), so the changelog computed on the first base is still exact.
    FileStoreTable others =
        catalog(new LocalFileIO())
            .createTable(
                ID,
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .option("changelog-producer", "lookup")
                    .option("bucket", "2")
                    .build());
    int[] keys = keysInTwoBuckets(others);
    int mine = keys[0];
    int theirs = keys[1];
    commit(others, "others", 1, new Object[] {mine, "a"}, new Object[] {theirs, "a"});
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(mine, "c"));
      messages = write.prepareCommit();
    }
    AtomicBoolean raced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-2") && raced.compareAndSet(false, true)) {
            commit(others, "others", 2, new Object[] {theirs, "b"});
          }
        });

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(result.retries()).isEqualTo(1);
    assertThat(changelog(ours, 3)).containsExactly("-U " + mine + " a", "+U " + mine + " c");
    assertThat(unreferenced(ours)).isEmpty();
  }

  /** A key of bucket 0 and a key of bucket 1 of a 2-bucket table. */
  private static int[] keysInTwoBuckets(FileStoreTable table) throws IOException {
    int[] found = {-1, -1};
    for (int k = 0; found[0] < 0 || found[1] < 0; k++) {
      List<CommitMessage> m;
      try (TableWrite write = table.newWrite("probe")) {
        write.write(GenericRow.of(k, "probe"));
        m = write.prepareCommit();
      }
      int bucket = m.get(0).bucket();
      if (found[bucket] < 0) {
        found[bucket] = k;
      }
      new TableCommit(table, "probe").abort(1, m);
    }
    return found;
  }

  @Test
  void aFailedCommitDeletesItsChangelogAndAnUnknownOutcomeKeepsIt() throws Exception {
    FileStoreTable others = create();
    commit(others, "others", 1, new Object[] {1, "a"});
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(1, "c"));
      messages = write.prepareCommit();
    }
    // Every create of snapshot-2 fails before landing: nothing is published.
    io.failNextMatching(
        Operation.CREATE, p -> p.name().equals("snapshot-2"), Fault.FAIL_BEFORE_LANDING, 3);
    assertThatThrownBy(() -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(CleanableFailure.class);
    io.clearFaults();
    assertThat(unreferenced(ours))
        .as("the changelog, its list and the delta are deleted; the data file is the caller's")
        .allMatch(p -> p.endsWith(messages.get(0).newFiles().get(0).fileName()))
        .hasSize(1);

    // The snapshot lands but its answer and the read-back are lost: the outcome is unknown, and
    // the changelog files (named by the snapshot that landed) are kept.
    io.failNextMatching(
        Operation.CREATE, p -> p.name().equals("snapshot-2"), Fault.LOSE_ANSWER_AFTER_LANDING, 1);
    io.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().equals("snapshot-2")) {
            io.failNextMatching(Operation.READ, p -> p.equals(path), Fault.FAIL_BEFORE_LANDING, 10);
          }
        });
    assertThatThrownBy(() -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(CommitStateUnknownException.class);
    io.clearFaults();
    assertThat(unreferenced(ours)).isEmpty();
    assertThat(changelog(ours, 2)).containsExactly("-U 1 a", "+U 1 c");
  }
}
