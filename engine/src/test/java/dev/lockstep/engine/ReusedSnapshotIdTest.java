package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, item 3: a committer paused between its base check and its publish, while other writers
 * commit and expire ({@code snapshot.num-retained.max = 1}), must not publish an id that existed
 * before. Without the fix its atomic create of base + 1 succeeds (that file was expired), the
 * commit is acknowledged behind the latest snapshot, and the next expiration deletes it and its
 * data: an acknowledged commit lost, and {@code LATEST} pointing back in time meanwhile.
 */
class ReusedSnapshotIdTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");
  private static final Map<String, String> RETAIN_ONE =
      Map.of(
          "snapshot.num-retained.min",
          "1",
          "snapshot.num-retained.max",
          "1",
          "snapshot.time-retained",
          "1 ms");
  private static final Schema SCHEMA =
      Schema.newBuilder()
          .column("k", DataType.intType())
          .column("v", DataType.string())
          .options(RETAIN_ONE)
          .build();

  @Test
  void aPausedCommitterNeverPublishesAnExpiredIdAndNoAcknowledgedCommitIsLost() throws Exception {
    Path warehouse = Path.of(dir.toString());
    FileStoreTable others =
        new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of()).createTable(ID, SCHEMA);
    List<Integer> acknowledged = new ArrayList<>();
    commit(others, "other", 1, 1, acknowledged);

    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable slow = new FileSystemCatalog(store, warehouse, Map.of()).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = slow.newWrite("slow")) {
      write.write(GenericRow.of(100, "slow"));
      messages = write.prepareCommit();
    }
    // The slow committer checked that its base, snapshot 1, exists; right before its snapshot
    // lands, two other commits land and expire everything but the newest.
    AtomicBoolean paused = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().startsWith("snapshot-") && paused.compareAndSet(false, true)) {
            commit(others, "other", 2, 2, acknowledged);
            commit(others, "other", 3, 3, acknowledged);
            assertThat(others.snapshotManager().log().listIds()).containsExactly(3L);
          }
        });
    TreeSet<Long> seen = new TreeSet<>(others.snapshotManager().log().listIds());
    Long slowId = null;
    try {
      CommitResult result = slow.newCommit("slow").commit(1, messages);
      slowId = result.dataSnapshotId();
      acknowledged.add(100);
    } catch (CommitFailedException e) {
      // Refusing is allowed: nothing was committed, and the messages can be committed again.
      assertThat(e.getMessage()).contains("nothing was committed");
      slowId = slow.newCommit("slow").commit(1, messages).dataSnapshotId();
      acknowledged.add(100);
    }
    assertThat(paused).isTrue();
    assertThat(slowId)
        .as("the slow commit's id is newer than every id that existed")
        .isGreaterThan(3);

    // Later commits expire the rest: every acknowledged row must still be there.
    commit(others, "other", 4, 4, acknowledged);
    commit(others, "other", 5, 5, acknowledged);
    List<Integer> keys = new ArrayList<>();
    for (GenericRow row : others.newRead().readAll(others.newScan().plan())) {
      keys.add((Integer) row.get(0));
    }
    assertThat(keys).containsExactlyInAnyOrderElementsOf(acknowledged);
    List<Long> ids = others.snapshotManager().log().listIds();
    seen.addAll(ids);
    assertThat(ids).hasSize(1);
    assertThat(others.snapshotManager().latestId().getAsLong()).isEqualTo(seen.last());
  }

  /** The base-0 case: a committer that found the table empty must not publish snapshot 1 again. */
  @Test
  void aCommitterThatFoundTheTableEmptyNeverPublishesAnExpiredSnapshotOne() throws Exception {
    Path warehouse = Path.of(dir.toString());
    FileStoreTable others =
        new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of()).createTable(ID, SCHEMA);
    List<Integer> acknowledged = new ArrayList<>();
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable slow = new FileSystemCatalog(store, warehouse, Map.of()).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = slow.newWrite("slow")) {
      write.write(GenericRow.of(100, "slow"));
      messages = write.prepareCommit();
    }
    AtomicBoolean paused = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().equals("snapshot-1") && paused.compareAndSet(false, true)) {
            for (int i = 1; i <= 3; i++) {
              commit(others, "other", i, i, acknowledged);
            }
            assertThat(others.snapshotManager().log().listIds()).containsExactly(3L);
          }
        });
    long slowId;
    try {
      slowId = slow.newCommit("slow").commit(1, messages).dataSnapshotId();
    } catch (CommitFailedException e) {
      assertThat(e.getMessage()).contains("withdrawn", "nothing was committed");
      slowId = slow.newCommit("slow").commit(1, messages).dataSnapshotId();
    }
    acknowledged.add(100);
    assertThat(slowId).isGreaterThan(3);
    commit(others, "other", 4, 4, acknowledged);
    List<Integer> keys = new ArrayList<>();
    for (GenericRow row : others.newRead().readAll(others.newScan().plan())) {
      keys.add((Integer) row.get(0));
    }
    assertThat(keys).containsExactlyInAnyOrderElementsOf(acknowledged);
  }

  /**
   * The history checker's finding (RENAME, seed 6026658415209: "acknowledged Ack[user=t2,
   * identifier=1, snapshotId=1] is a snapshot below the history"). A committer that found the table
   * empty publishes snapshot 1 after others committed 1..3 and expired 1 and 2; its outcome is
   * unknown (the answer and the read-back are lost), so nobody withdraws that file: it stays below
   * the history (engine README, "the real window" (d)). The re-commit of the same identifier must
   * not take that file for its own landed commit. It did when the table's newest snapshot expired
   * between the re-commit's {@code latestId()} and its read (an expirer racing): with no base, the
   * catch-up read from snapshot 1 on, found the stray file holding this very (user, identifier) and
   * acknowledged it, although no reader ever sees its rows.
   */
  @Test
  void aReCommitNeverTakesASnapshotBelowTheHistoryForItsOwn() throws Exception {
    Path warehouse = Path.of(dir.toString());
    FileStoreTable others =
        new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of()).createTable(ID, SCHEMA);
    List<Integer> acknowledged = new ArrayList<>();
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable slow = new FileSystemCatalog(store, warehouse, Map.of()).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = slow.newWrite("slow")) {
      write.write(GenericRow.of(100, "slow"));
      messages = write.prepareCommit();
    }
    AtomicBoolean paused = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().equals("snapshot-1") && paused.compareAndSet(false, true)) {
            for (int i = 1; i <= 3; i++) {
              commit(others, "other", i, i, acknowledged);
            }
            assertThat(others.snapshotManager().log().listIds()).containsExactly(3L);
            // The stale snapshot 1 lands, its answer is lost and so is the read-back: unknown.
            store.failNextMatching(
                Operation.READ,
                p -> p.name().equals("snapshot-1"),
                FaultPlan.Fault.FAIL_BEFORE_LANDING,
                1);
          }
        });
    store.failNextMatching(
        Operation.CREATE,
        path -> path.name().equals("snapshot-1"),
        FaultPlan.Fault.LOSE_ANSWER_AFTER_LANDING,
        1);
    assertThatThrownBy(() -> slow.newCommit("slow").commit(1, messages))
        .isInstanceOf(CommitStateUnknownException.class);
    assertThat(others.snapshotManager().log().listIds()).containsExactly(1L, 3L);
    assertThat(others.snapshotManager().readUncached(1).orElseThrow().commitUser())
        .isEqualTo("slow");
    store.clearFaults();

    // The re-commit: each time it reads the newest snapshot for the first time, another commit
    // lands and expires it (snapshot.num-retained.max = 1), as a racing expirer would.
    AtomicInteger raced = new AtomicInteger();
    store.beforeLanding(
        Operation.READ,
        (operation, path) -> {
          int n = raced.get();
          if (n < 2 && path.name().equals("snapshot-" + (3 + n)) && raced.compareAndSet(n, n + 1)) {
            commit(others, "other", 4 + n, 4 + n, acknowledged);
          }
        });
    long slowId;
    try {
      slowId = slow.newCommit("slow").commit(1, messages).dataSnapshotId();
    } catch (CommitFailedException e) {
      // Refusing is allowed: nothing was committed, and the messages can be committed again.
      assertThat(e.getMessage()).contains("nothing");
      slowId = slow.newCommit("slow").commit(1, messages).dataSnapshotId();
    }
    acknowledged.add(100);
    assertThat(raced).hasValue(2);
    assertThat(slowId)
        .as("the acknowledged snapshot is in the history, not the stray snapshot 1")
        .isGreaterThan(5);
    List<Long> ids = others.snapshotManager().log().listIds();
    assertThat(ids).contains(slowId);
    List<Integer> keys = new ArrayList<>();
    for (GenericRow row : others.newRead().readAll(others.newScan().plan())) {
      keys.add((Integer) row.get(0));
    }
    assertThat(keys).containsExactlyInAnyOrderElementsOf(acknowledged);
  }

  /**
   * The other side: a fresh snapshot that others built on and that expired before its committer
   * could check it is acknowledged, never withdrawn (withdrawing it would lose it and the commits
   * built on it).
   */
  @Test
  void aFreshSnapshotThatExpiredRightAfterLandingIsAcknowledged() throws Exception {
    Path warehouse = Path.of(dir.toString());
    FileStoreTable others =
        new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of()).createTable(ID, SCHEMA);
    List<Integer> acknowledged = new ArrayList<>();
    commit(others, "other", 1, 1, acknowledged);
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable slow = new FileSystemCatalog(store, warehouse, Map.of()).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = slow.newWrite("slow")) {
      write.write(GenericRow.of(100, "slow"));
      messages = write.prepareCommit();
    }
    AtomicBoolean landing = new AtomicBoolean();
    AtomicBoolean checked = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().equals("snapshot-2")) {
            landing.set(true);
          }
        });
    // The first read of the base after our snapshot landed: others build two snapshots on ours
    // and expire everything but the newest, ours and its base included.
    store.beforeLanding(
        Operation.READ,
        (operation, path) -> {
          if (landing.get()
              && path.name().equals("snapshot-1")
              && checked.compareAndSet(false, true)) {
            commit(others, "other", 2, 2, acknowledged);
            commit(others, "other", 3, 3, acknowledged);
            assertThat(others.snapshotManager().log().listIds()).containsExactly(4L);
          }
        });
    CommitResult result = slow.newCommit("slow").commit(1, messages);
    acknowledged.add(100);
    assertThat(checked).isTrue();
    assertThat(result.dataSnapshotId()).isEqualTo(2);
    List<Integer> keys = new ArrayList<>();
    for (GenericRow row : others.newRead().readAll(others.newScan().plan())) {
      keys.add((Integer) row.get(0));
    }
    assertThat(keys).containsExactlyInAnyOrderElementsOf(acknowledged);
  }

  private static void commit(
      FileStoreTable table, String user, long identifier, int key, List<Integer> acknowledged)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(key, user));
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
    acknowledged.add(key);
  }
}
