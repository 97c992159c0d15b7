package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit that found the table empty (no base) catches up from snapshot 1 with nothing to link the
 * first snapshot it reads to (CommitLoop.catchUp and inHistory): that snapshot is part of the
 * history when the snapshot after it was built on it, when it is the newest listed, or when it is
 * gone by the time it is checked (only a snapshot something was built on expires); it is below the
 * history (an expired id published again by a commit of unknown outcome, built by hand here) when
 * the snapshot after it names another parent, or when its successor is missing while newer
 * snapshots exist and it is still there. A commit never builds on a snapshot below the history: it
 * fails with nothing committed, and the same messages then land on the head. Real local store; the
 * expiration in the middle of the check comes through a store hook.
 */
class CatchUpWithoutBaseTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable history(int commits) throws IOException {
    FileStoreTable table = TestTables.appendTable(dir, Map.of("snapshot.num-retained.min", "1000"));
    for (int c = 1; c <= commits; c++) {
      try (TableWrite write = table.newWrite("other")) {
        write.write(GenericRow.of("other", (long) c));
        table.newCommit("other").commit(c, write.prepareCommit());
      }
    }
    return table;
  }

  /** The table as a new table object (nothing cached) on {@code io}. */
  private FileStoreTable reopen(FileIO io) throws IOException {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of())
        .getTable(new Identifier("db", "log"));
  }

  /** Commits as if the table had been empty when the commit started (no base). */
  private static long commitWithoutBase(FileStoreTable table) throws IOException {
    return new CommitLoop(table, "ours").commit(CommitKind.APPEND, List.of(), 1, null, null);
  }

  /** A late write of another commit under {@code first}'s id, built on the same base. */
  private static Snapshot stray(Snapshot first) {
    return new Snapshot(
        first.version(),
        first.id(),
        first.schemaId(),
        first.baseManifestList(),
        first.priorDeltas(),
        first.deltaManifestList(),
        "late",
        99,
        first.commitKind(),
        first.timeMillis(),
        first.totalRecordCount(),
        first.deltaRecordCount(),
        UUID.randomUUID().toString(),
        first.fencing(),
        first.parentCommitId());
  }

  private static void put(FileStoreTable table, Snapshot s) throws IOException {
    try (OutputStream out =
        table.fileIO().newOutputStream(table.snapshotManager().log().snapshotPath(s.id()), true)) {
      out.write(SnapshotManager.serialize(s));
    }
  }

  private static void expire(FileStoreTable table, long... ids) throws IOException {
    for (long id : ids) {
      table.fileIO().delete(table.snapshotManager().log().snapshotPath(id), false);
    }
  }

  @Test
  void theOnlySnapshotIsTheNewestListedAndIsBuiltOn() throws Exception {
    history(1);
    FileStoreTable ours = reopen(new LocalFileIO());

    assertThat(commitWithoutBase(ours)).isEqualTo(2);
    assertThat(ours.snapshotManager().get(2).parentCommitId())
        .isEqualTo(ours.snapshotManager().get(1).commitId());
  }

  @Test
  void aFirstSnapshotTheNextWasBuiltOnIsCaughtUpOver() throws Exception {
    history(2);
    FileStoreTable ours = reopen(new LocalFileIO());

    assertThat(commitWithoutBase(ours)).isEqualTo(3);
  }

  @Test
  void aStrayWhoseSuccessorNamesAnotherParentIsNeverBuiltOn() throws Exception {
    FileStoreTable table = history(2);
    Snapshot first = table.snapshotManager().get(1);
    expire(table, 1);
    put(table, stray(first));
    FileStoreTable ours = reopen(new LocalFileIO());

    assertThatThrownBy(() -> commitWithoutBase(ours))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("Snapshot 1 of ")
        .hasMessageContaining("is not part of the table's history");
    assertThat(ours.snapshotManager().log().listIds()).containsExactly(1L, 2L);
    // The same commit on the head lands.
    assertThat(
            new CommitLoop(ours, "ours")
                .commit(CommitKind.APPEND, List.of(), 1, null, ours.snapshotManager().get(2)))
        .isEqualTo(3);
  }

  @Test
  void aStrayBelowAGapIsNeverBuiltOn() throws Exception {
    FileStoreTable table = history(4);
    Snapshot first = table.snapshotManager().get(1);
    expire(table, 1, 2);
    put(table, stray(first));
    FileStoreTable ours = reopen(new LocalFileIO());

    assertThatThrownBy(() -> commitWithoutBase(ours))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("Snapshot 1 of ")
        .hasMessageContaining("is not part of the table's history");
    assertThat(ours.snapshotManager().log().listIds()).containsExactly(1L, 3L, 4L);
  }

  /**
   * Snapshot 1 is read, then 1 and 2 expire before the check reads 2: a snapshot gone by then was
   * part of the history (only what a successor was built on expires). The commit then fails because
   * its base expired, not as a stray.
   */
  @Test
  void aFirstSnapshotThatExpiresDuringTheCheckCountsAsHistory() throws Exception {
    FileStoreTable table = history(4);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = reopen(io);
    AtomicBoolean expired = new AtomicBoolean();
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (path.name().equals("snapshot-2") && expired.compareAndSet(false, true)) {
            expire(table, 1, 2);
          }
        });

    assertThatThrownBy(() -> commitWithoutBase(ours))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("Snapshot 1, the base of APPEND commit 1 of ours, expired");
    assertThat(expired).isTrue();
    assertThat(ours.snapshotManager().log().listIds()).containsExactly(3L, 4L);
  }
}
