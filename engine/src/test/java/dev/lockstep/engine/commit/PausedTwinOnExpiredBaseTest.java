package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first catch-up of a commit whose attempt paused on base 2 while 2 expired: the snapshot 3 it
 * finds holds this very commit ("ours", 1, APPEND) and is linked to the base it remembers. Whether
 * that twin counts as landed depends on whether it is part of the history (CommitLoop.catchUp's
 * check of an expired base, {@code stillThere} and {@code inHistory}). The states are built by hand
 * with real snapshot files, as expiration (ascending) and a late publish of an expired id leave
 * them.
 */
class PausedTwinOnExpiredBaseTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable open() throws IOException {
    return new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of())
        .getTable(new Identifier("db", "t"));
  }

  /** Snapshots 1..count: one empty APPEND commit each, by "other" unless {@code oursAt}. */
  private void history(int count, long oursAt) throws IOException {
    new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of())
        .createTable(
            new Identifier("db", "t"), Schema.newBuilder().column("n", DataType.bigint()).build());
    for (long c = 1; c <= count; c++) {
      FileStoreTable t = open();
      String user = c == oursAt ? "ours" : "other";
      long identifier = c == oursAt ? 1 : c;
      long id =
          new CommitLoop(t, user)
              .commit(
                  CommitKind.APPEND,
                  List.of(),
                  identifier,
                  null,
                  t.snapshotManager().latest().orElse(null));
      assertThat(id).isEqualTo(c);
    }
  }

  private Snapshot read(FileStoreTable t, long id) throws IOException {
    return t.snapshotManager().readUncached(id).orElseThrow();
  }

  private void expire(FileStoreTable t, long... ids) throws IOException {
    for (long id : ids) {
      assertThat(t.fileIO().delete(t.snapshotManager().log().snapshotPath(id), false)).isTrue();
    }
  }

  /** A late write of {@code user}'s commit under {@code first}'s id, built on the same base. */
  private static Snapshot stray(Snapshot first, String user, long identifier) {
    return new Snapshot(
        first.version(),
        first.id(),
        first.schemaId(),
        first.baseManifestList(),
        first.priorDeltas(),
        first.deltaManifestList(),
        user,
        identifier,
        first.commitKind(),
        first.timeMillis(),
        first.totalRecordCount(),
        first.deltaRecordCount(),
        UUID.randomUUID().toString(),
        first.fencing(),
        first.parentCommitId());
  }

  private static void publish(FileStoreTable t, Snapshot s) throws IOException {
    FileIO io = t.fileIO();
    try (OutputStream out =
        io.newOutputStream(t.snapshotManager().log().snapshotPath(s.id()), true)) {
      out.write(SnapshotManager.serialize(s));
    }
  }

  /** Our commit, resumed on the base it read before pausing. */
  private static long resume(FileStoreTable t, Snapshot base) throws IOException {
    return new CommitLoop(t, "ours").commit(CommitKind.APPEND, List.of(), 1, null, base);
  }

  @Test
  void aTwinInTheHistoryOverAnExpiredBaseHasLanded() throws IOException {
    history(4, 3);
    FileStoreTable t = open();
    Snapshot base = read(t, 2);
    expire(t, 1, 2);
    // 4 was built on our 3: it is part of the history, the commit landed there.
    assertThat(resume(open(), base)).isEqualTo(3);
  }

  @Test
  void aTwinBelowTheHistoryOverAnExpiredBaseIsNotCounted() throws IOException {
    history(4, -1);
    FileStoreTable t = open();
    Snapshot base = read(t, 2);
    // 1..3 of the history, 3 then published again by our paused attempt (linked to 2), 2 gone.
    Snapshot twin = stray(read(t, 3), "ours", 1);
    expire(t, 1, 2);
    publish(t, twin);
    assertThat(base.isParentOf(twin)).isTrue();
    assertThatThrownBy(() -> resume(open(), base))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("Snapshot 3")
        .hasMessageContaining("not part of the table's history");
  }

  @Test
  void aTwinBelowTheHistoryOverABaseWhoseIdWasPublishedAgainIsNotCounted() throws IOException {
    history(4, -1);
    FileStoreTable t = open();
    Snapshot base = read(t, 2);
    Snapshot twin = stray(read(t, 3), "ours", 1);
    // Our base's id holds another commit now (a late write of an expired id): not our base.
    Snapshot otherAt2 = stray(base, "late", 7);
    expire(t, 1, 2);
    publish(t, otherAt2);
    publish(t, twin);
    assertThatThrownBy(() -> resume(open(), base))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("not part of the table's history");
  }

  @Test
  void aTwinBelowAGapIsNotCounted() throws IOException {
    history(5, -1);
    FileStoreTable t = open();
    Snapshot base = read(t, 2);
    Snapshot twin = stray(read(t, 3), "ours", 1);
    expire(t, 1, 2, 4);
    publish(t, twin);
    // Nothing right above 3 while 5 exists: 3 is below the history.
    assertThatThrownBy(() -> resume(open(), base))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("not part of the table's history");
  }

  @Test
  void aTwinThatExpiredAfterTheCatchUpReadItHasLanded() throws IOException {
    history(5, 3);
    FileStoreTable t = open();
    Snapshot base = read(t, 2);
    FileStoreTable resumed = open();
    // The catch-up read 3 (cached), then 1..4 expired: only a snapshot that was built on expires
    // while newer ones exist, so the twin was part of the history.
    assertThat(resumed.snapshotManager().find(3)).isPresent();
    expire(t, 1, 2, 3, 4);
    assertThat(resume(resumed, base)).isEqualTo(3);
  }

  @Test
  void aTwinThatExpiredAfterTheCatchUpReadItHasLandedWhateverHoldsTheBasesIdNow()
      throws IOException {
    history(5, 3);
    FileStoreTable t = open();
    Snapshot base = read(t, 2);
    FileStoreTable resumed = open();
    assertThat(resumed.snapshotManager().find(3)).isPresent();
    expire(t, 1, 2, 3, 4);
    // A late write published the base's id again: the gap above 3 still says 3 was in the history.
    publish(t, stray(base, "late", 7));
    assertThat(resume(resumed, base)).isEqualTo(3);
  }
}
