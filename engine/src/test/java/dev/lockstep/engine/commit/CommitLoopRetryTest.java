package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.SharedInJvmLockFactory;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commit loop picks its wait after a snapshot conflict from what lock-api observed: a conflict
 * on a lock-free store retries at once with jitter, a conflict after waiting for a lock that
 * another committer held backs off. When a limit runs out, the failure names it, commits nothing
 * and leaves the messages committable. Real local store, real (in-JVM) lock; the conflicting
 * snapshot is committed by another table object at the exact moment that makes the attempt lose.
 */
class CommitLoopRetryTest {

  @TempDir java.nio.file.Path dir;

  private FileSystemCatalog catalog(FileIO io, Map<String, String> options) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), options);
  }

  private static Schema schema() {
    return Schema.newBuilder().column("n", DataType.bigint()).build();
  }

  /** Another committer lands snapshot 1 with one row, through its own lock-free table object. */
  private void commitAsAnotherWriter(String table) throws IOException {
    FileStoreTable other =
        catalog(new LocalFileIO(), Map.of("commit.strategy", "atomic-create"))
            .getTable(Identifier.parse(table));
    try (other;
        TableWrite write = other.newWrite("other")) {
      write.write(GenericRow.of(7L));
      assertThat(other.newCommit("other").commit(1, write.prepareCommit()).dataSnapshotId())
          .isEqualTo(1);
    }
  }

  /** Right before our atomic create of snapshot-1 reaches the store, another writer takes it. */
  private void loseTheFirstRace(FaultInjectingStore io, String table) {
    AtomicBoolean raced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && raced.compareAndSet(false, true)) {
            commitAsAnotherWriter(table);
          }
        });
  }

  @Test
  void aConflictOnALockFreeStoreRetriesAtOnceWithJitter() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, Map.of()).createTable(new Identifier("db", "free"), schema());
    loseTheFirstRace(io, "db.free");
    CommitLoop loop = new CommitLoop(table, "ours");

    long id = loop.commit(CommitKind.APPEND, List.of(), 1, null, null);

    assertThat(table.committer().strategy()).isEqualTo("atomic-create");
    assertThat(id).isEqualTo(2);
    assertThat(loop.retries()).isEqualTo(1);
    assertThat(loop.pauses())
        .singleElement()
        .satisfies(
            pause -> {
              assertThat(pause.backoff()).isFalse();
              assertThat(pause.maxNanos())
                  .isEqualTo(
                      RetryPolicy.JITTER_MULTIPLE * table.options().commitMinRetryWait().toNanos());
            });
    assertThat(table.snapshotManager().get(2).commitUser()).isEqualTo("ours");
    table.close();
  }

  /** Starts {@code loop}'s commit of identifier 1 on another thread. */
  private static CompletableFuture<Long> commitAsync(CommitLoop loop) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return loop.commit(CommitKind.APPEND, List.of(), 1, null, null);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /**
   * The holder our commit waited for commits meanwhile: having got the lease, our attempt catches
   * up under it and builds on the holder's snapshot, so it does not conflict at all (before, it had
   * made snapshot 1 before asking for the lock and lost to the holder, every time it had to wait).
   */
  @Test
  void aCommitThatWaitedForTheLockRebasesUnderTheLeaseInsteadOfConflicting() throws Exception {
    Map<String, String> locked =
        Map.of("lock.enabled", "true", "lock.type", SharedInJvmLockFactory.IDENTIFIER);
    FileStoreTable table =
        catalog(new LocalFileIO(), locked).createTable(new Identifier("db", "waited"), schema());
    assertThat(table.committer().strategy()).isEqualTo("lock + atomic-create");
    var waiting = SharedInJvmLockFactory.waitingAcquire("db.waited");
    CommitLoop loop = new CommitLoop(table, "ours");
    Lease held = SharedInJvmLockFactory.SHARED.acquire("db.waited", Duration.ZERO).orElseThrow();
    CompletableFuture<Long> commit = commitAsync(loop);
    long timeout = (long) (30_000 * TestTiming.FACTOR);
    try {
      // Our attempt found the lock held and now waits for it; meanwhile the holder commits.
      assertThat(waiting.await(timeout, TimeUnit.MILLISECONDS)).isTrue();
      commitAsAnotherWriter("db.waited");
    } finally {
      held.close();
    }

    assertThat(commit.get(timeout, TimeUnit.MILLISECONDS)).isEqualTo(2);
    assertThat(loop.retries()).isZero();
    assertThat(loop.pauses()).isEmpty();
    assertThat(table.snapshotManager().get(2).commitUser()).isEqualTo("ours");
    assertThat(table.snapshotManager().get(2).parentCommitId())
        .isEqualTo(table.snapshotManager().get(1).commitId());
    table.close();
  }

  /**
   * A writer outside the lock takes snapshot 1 while our attempt, which had waited for the lock,
   * publishes under the lease: that conflict backs off.
   */
  @Test
  void aConflictAfterWaitingForAHeldLockBacksOff() throws Exception {
    Map<String, String> locked =
        Map.of("lock.enabled", "true", "lock.type", SharedInJvmLockFactory.IDENTIFIER);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, locked).createTable(new Identifier("db", "contended"), schema());
    assertThat(table.committer().strategy()).isEqualTo("lock + atomic-create");
    loseTheFirstRace(io, "db.contended");
    var waiting = SharedInJvmLockFactory.waitingAcquire("db.contended");
    CommitLoop loop = new CommitLoop(table, "ours");
    Lease held = SharedInJvmLockFactory.SHARED.acquire("db.contended", Duration.ZERO).orElseThrow();
    CompletableFuture<Long> commit = commitAsync(loop);
    long timeout = (long) (30_000 * TestTiming.FACTOR);
    try {
      assertThat(waiting.await(timeout, TimeUnit.MILLISECONDS)).isTrue();
    } finally {
      held.close();
    }

    assertThat(commit.get(timeout, TimeUnit.MILLISECONDS)).isEqualTo(2);
    assertThat(loop.retries()).isEqualTo(1);
    assertThat(loop.pauses())
        .singleElement()
        .satisfies(
            pause -> {
              assertThat(pause.backoff()).isTrue();
              assertThat(pause.maxNanos())
                  .isEqualTo(table.options().commitMinRetryWait().toNanos());
            });
    assertThat(table.snapshotManager().get(2).commitUser()).isEqualTo("ours");
    table.close();
  }

  /**
   * Out of retries after conflicts under a contended lock, the failure says so (and how many) and
   * points at the committers or a lock-free strategy rather than at a higher limit.
   */
  @Test
  void outOfRetriesUnderAContendedLockTheFailureBlamesTheContention() throws Exception {
    Map<String, String> locked =
        Map.of(
            "lock.enabled",
            "true",
            "lock.type",
            SharedInJvmLockFactory.IDENTIFIER,
            "commit.max-retries",
            "0");
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, locked).createTable(new Identifier("db", "contendedlimit"), schema());
    loseTheFirstRace(io, "db.contendedlimit");
    var waiting = SharedInJvmLockFactory.waitingAcquire("db.contendedlimit");
    CommitLoop loop = new CommitLoop(table, "ours");
    Lease held =
        SharedInJvmLockFactory.SHARED.acquire("db.contendedlimit", Duration.ZERO).orElseThrow();
    CompletableFuture<Long> commit = commitAsync(loop);
    long timeout = (long) (30_000 * TestTiming.FACTOR);
    try {
      assertThat(waiting.await(timeout, TimeUnit.MILLISECONDS)).isTrue();
    } finally {
      held.close();
    }

    assertThatThrownBy(() -> commit.get(timeout, TimeUnit.MILLISECONDS))
        .cause()
        .isInstanceOf(java.io.UncheckedIOException.class)
        .cause()
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("'commit.max-retries' (0): 1 snapshot conflicts")
        .hasMessageContaining("(1 under a contended lock)")
        .hasMessageContaining("other commits took snapshot 1 meanwhile")
        .hasMessageContaining("The table's lock was held by another committer in most attempts");
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(1);
    table.close();
  }

  @Test
  void outOfRetriesTheCommitFailsNamingTheLimitAndTheSameMessagesCommitLater() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, Map.of("commit.max-retries", "0"))
            .createTable(new Identifier("db", "budget"), schema());
    loseTheFirstRace(io, "db.budget");
    try (TableWrite write = table.newWrite("ours")) {
      write.write(GenericRow.of(1L));
      var messages = write.prepareCommit();
      TableCommit commit = table.newCommit("ours");

      assertThatThrownBy(() -> commit.commit(1, messages))
          .isInstanceOf(CommitFailedException.class)
          .hasMessageContaining("'commit.max-retries' (0): 1 snapshot conflicts")
          .hasMessageContaining("other commits took snapshot 1 meanwhile")
          .hasMessageNotContaining("under a contended lock")
          .hasMessageContaining("with fair turns a commit loses about one race per other committer")
          .hasMessageContaining("Nothing was committed")
          .hasMessageContaining("commit the same messages again");
      assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(1);

      assertThat(commit.commit(1, messages).dataSnapshotId()).isEqualTo(2);
    }
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(2);
    table.close();
  }

  /** {@code commit.max-retries} counts retries: with 1, one conflict still lands. */
  @Test
  void withOneRetryAllowedOneConflictStillLands() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        catalog(io, Map.of("commit.max-retries", "1"))
            .createTable(new Identifier("db", "one"), schema());
    loseTheFirstRace(io, "db.one");
    CommitLoop loop = new CommitLoop(table, "ours");

    assertThat(loop.commit(CommitKind.APPEND, List.of(), 1, null, null)).isEqualTo(2);
    assertThat(loop.retries()).isEqualTo(1);
    table.close();
  }

  @Test
  void outOfTimeTheCommitFailsNamingTheTimeout() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    // One nanosecond: spent before the first conflict, whatever the machine.
    FileStoreTable table =
        catalog(io, Map.of("commit.timeout", "1 ns"))
            .createTable(new Identifier("db", "late"), schema());
    loseTheFirstRace(io, "db.late");
    CommitLoop loop = new CommitLoop(table, "ours");

    assertThatThrownBy(() -> loop.commit(CommitKind.APPEND, List.of(), 1, null, null))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("at 'commit.timeout' (1 ns): 1 snapshot conflicts")
        .hasMessageContaining("The attempts themselves were slow");
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(1);
    table.close();
  }
}
