package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit paused between its base check and its publish while its snapshot id was taken by others
 * and expired (CommitLoop.verifyFresh, confirmFresh, withdraw, baseIsCurrent): what it publishes
 * under the reused id is withdrawn, and the files its attempt wrote go with it. Real local store;
 * the other writer commits (and "expiration" deletes snapshot files, in ascending order) at the
 * exact moment through a store hook.
 */
class PausedPublishOfAnExpiredIdTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");

  private final AtomicLong identifiers = new AtomicLong();

  private FileSystemCatalog catalog(FileIO io) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private FileStoreTable create() throws IOException {
    return catalog(new LocalFileIO())
        .createTable(
            ID,
            // Write-only: one snapshot per commit (no compaction snapshot at a moment of its own).
            Schema.newBuilder()
                .column("n", DataType.bigint())
                .option("write-only", "true")
                .build());
  }

  private FileStoreTable other() throws IOException {
    return catalog(new LocalFileIO()).getTable(ID);
  }

  private static void append(FileStoreTable table, String user, long identifier)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(identifier));
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  private void othersCommit(int count) {
    try {
      for (int i = 1; i <= count; i++) {
        append(other(), "other", identifiers.incrementAndGet());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void expire(long... ids) {
    try {
      FileStoreTable t = other();
      for (long id : ids) {
        assertThat(t.fileIO().delete(t.snapshotManager().log().snapshotPath(id), false)).isTrue();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<CommitMessage> oneRow(FileStoreTable table) throws IOException {
    try (TableWrite write = table.newWrite("ours")) {
      write.write(GenericRow.of(1000L));
      return write.prepareCommit();
    }
  }

  private static List<String> recordManifestWrites(FaultInjectingStore io) {
    List<String> written = new ArrayList<>();
    io.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          if (path.name().startsWith("manifest-")) {
            synchronized (written) {
              written.add(path.name());
            }
          }
        });
    return written;
  }

  private void assertAllDeleted(List<String> written) {
    synchronized (written) {
      assertThat(written).as("our attempt wrote manifests").isNotEmpty();
      for (String name : written) {
        assertThat(dir.resolve("db.db").resolve("t").resolve("manifest").resolve(name))
            .as("our %s is deleted", name)
            .doesNotExist();
      }
    }
  }

  /**
   * The first commit of an empty table pauses before publishing snapshot 1; meanwhile others commit
   * 1..3 and 1..2 expire. Ours lands under the expired id 1, with no 2 above it while 3 exists:
   * reused (a gap right above ours), withdrawn.
   */
  @Test
  void anIdPublishedAgainBelowAGapIsWithdrawnWithTheAttemptsFiles() throws Exception {
    create();
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages = oneRow(ours);
    List<String> written = recordManifestWrites(io);
    AtomicBoolean paused = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && paused.compareAndSet(false, true)) {
            othersCommit(3);
            try {
              // A reader of the same table object read the id's first holder meanwhile.
              assertThat(ours.snapshotManager().find(1)).isPresent();
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            expire(1, 2);
          }
        });

    assertThatThrownBy(() -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("had existed and expired");

    assertThat(paused).isTrue();
    assertThat(other().snapshotManager().log().listIds()).containsExactly(3L);
    assertThat(ours.snapshotManager().find(1))
        .as("snapshot 1 is neither ours (withdrawn) nor its expired first holder")
        .isEmpty();
    assertAllDeleted(written);
  }

  /**
   * As above, but ours is deleted right after it landed by an expiration that had the id's first
   * holder in its plan; 2 (built on that first holder) is still there: reused and gone, nothing to
   * withdraw, and the attempt's files are deleted.
   */
  @Test
  void anIdPublishedAgainAndDeletedByExpirationLeavesNoFiles() throws Exception {
    create();
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages = oneRow(ours);
    List<String> written = recordManifestWrites(io);
    AtomicBoolean paused = new AtomicBoolean();
    AtomicBoolean deleted = new AtomicBoolean();
    AtomicInteger reads = new AtomicInteger();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && paused.compareAndSet(false, true)) {
            othersCommit(3);
            expire(1);
          }
        });
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (paused.get() && path.name().equals("snapshot-1")) {
            reads.incrementAndGet();
            if (deleted.compareAndSet(false, true)) {
              expire(1);
            }
          }
        });

    assertThatThrownBy(() -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("an expiration deleted the file it published");

    assertThat(deleted).isTrue();
    assertThat(other().snapshotManager().log().listIds()).containsExactly(2L, 3L);
    assertAllDeleted(written);
  }

  /**
   * A commit resumed on base 3 after 1..5 expired (6 is the newest) and id 2 was published again by
   * another late write: the base's parent id exists but is not its parent, so the base check lists
   * the snapshots, finds the base expired and publishes nothing.
   */
  @Test
  void aBaseWhoseParentsIdWasPublishedAgainIsCheckedByTheListing() throws Exception {
    FileStoreTable t = create();
    othersCommit(6);
    Snapshot base = t.snapshotManager().readUncached(3).orElseThrow();
    Snapshot parent = t.snapshotManager().readUncached(2).orElseThrow();
    expire(1, 2, 3, 4, 5);
    Snapshot late =
        new Snapshot(
            parent.version(),
            parent.id(),
            parent.schemaId(),
            parent.baseManifestList(),
            parent.priorDeltas(),
            parent.deltaManifestList(),
            "late",
            7,
            parent.commitKind(),
            parent.timeMillis(),
            parent.totalRecordCount(),
            parent.deltaRecordCount(),
            UUID.randomUUID().toString(),
            parent.fencing(),
            parent.parentCommitId());
    try (OutputStream out =
        t.fileIO().newOutputStream(t.snapshotManager().log().snapshotPath(2), true)) {
      out.write(SnapshotManager.serialize(late));
    }
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<String> created = new ArrayList<>();
    io.beforeLanding(Operation.CREATE, (op, path) -> created.add(path.name()));

    assertThatThrownBy(
            () -> new CommitLoop(ours, "ours").commit(CommitKind.APPEND, List.of(), 1, null, base))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("the base of");
    assertThat(created).as("nothing published").noneMatch(n -> n.startsWith("snapshot-"));
    assertThat(other().snapshotManager().log().listIds()).containsExactly(2L, 6L);
  }

  private static Snapshot withCommitId(Snapshot s, String user, long identifier) {
    return new Snapshot(
        s.version(),
        s.id(),
        s.schemaId(),
        s.baseManifestList(),
        s.priorDeltas(),
        s.deltaManifestList(),
        user,
        identifier,
        s.commitKind(),
        s.timeMillis(),
        s.totalRecordCount(),
        s.deltaRecordCount(),
        UUID.randomUUID().toString(),
        s.fencing(),
        s.parentCommitId());
  }

  private void overwrite(Snapshot s) {
    try {
      FileStoreTable t = other();
      try (OutputStream out =
          t.fileIO().newOutputStream(t.snapshotManager().log().snapshotPath(s.id()), true)) {
        out.write(SnapshotManager.serialize(s));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Ours pauses before publishing 3 on base 2; others commit 3..5, 1..4 expire, and a late write
   * puts another commit under id 2. Ours lands under the expired id 3 with no 4 above it while 5
   * exists: reused (the base's id holds another commit, so it proves nothing), withdrawn.
   */
  @Test
  void anIdPublishedAgainBelowAGapIsWithdrawnWhateverHoldsTheBasesIdNow() throws Exception {
    create();
    othersCommit(2);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages = oneRow(ours);
    AtomicBoolean paused = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-3") && paused.compareAndSet(false, true)) {
            try {
              Snapshot second = other().snapshotManager().readUncached(2).orElseThrow();
              othersCommit(3);
              expire(1, 2, 3, 4);
              overwrite(withCommitId(second, "late", 7));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        });

    assertThatThrownBy(() -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("had existed and expired");
    assertThat(paused).isTrue();
    assertThat(other().snapshotManager().log().listIds()).containsExactly(2L, 5L);
  }

  /**
   * Ours, published under an expired id, is overwritten by another commit before the check reads
   * it: whether the history continues from ours cannot be told, and nothing is withdrawn.
   */
  @Test
  void aPublishedSnapshotReplacedBeforeTheCheckIsAnUnknownOutcome() throws Exception {
    create();
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages = oneRow(ours);
    AtomicBoolean paused = new AtomicBoolean();
    AtomicBoolean replaced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && paused.compareAndSet(false, true)) {
            othersCommit(3);
            expire(1, 2);
          }
        });
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (paused.get()
              && path.name().equals("snapshot-1")
              && replaced.compareAndSet(false, true)) {
            try {
              Snapshot landed = other().snapshotManager().readUncached(1).orElseThrow();
              overwrite(withCommitId(landed, "late", 7));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        });

    assertThatThrownBy(() -> ours.newCommit("ours").commit(1, messages))
        .isInstanceOf(CommitStateUnknownException.class);
    assertThat(replaced).isTrue();
    assertThat(other().snapshotManager().readUncached(1).orElseThrow().commitUser())
        .isEqualTo("late");
  }
}
