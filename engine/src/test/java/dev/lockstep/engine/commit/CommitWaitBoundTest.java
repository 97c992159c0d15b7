package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The waits of the commit loop between attempts are bounded: the back-off after a conflict under a
 * contended lock and the wait for a winner's snapshot that never becomes readable both end at
 * {@code commit.timeout}, even when {@code commit.min-retry-wait} / {@code commit.max-retry-wait}
 * are an hour; an interrupt during either wait fails the commit with {@link
 * CommitInterruptedException}, nothing committed, and leaves the thread's interrupt flag set.
 * (CommitLoop.sleep and CommitLoop.awaitWinner.) Real local store, real in-JVM lock; a commit that
 * ignored the bound would wait an hour, which the tests' guard (a minute, scaled) reports as a
 * failure, not a timing measurement.
 */
class CommitWaitBoundTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");

  /** Long enough that the commit reaches its first conflict well before it, under any load. */
  private static final Duration TIMEOUT = TestTiming.scaled(Duration.ofSeconds(3));

  /** The tests' guard against a wait that ignored its bound (those waits are an hour). */
  private static final long GUARD_MS = TestTiming.scaled(Duration.ofSeconds(90)).toMillis();

  private FileSystemCatalog catalog(FileIO io, Map<String, String> options) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), options);
  }

  private static Schema schema(Map<String, String> options) {
    return Schema.newBuilder()
        .column("k", DataType.intType())
        .column("v", DataType.string())
        .options(options)
        .build();
  }

  private static void append(FileStoreTable table, String user, long identifier, int key)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(key, user));
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  /** Runs one commit on its own thread. */
  private static final class Committer extends Thread {
    final CompletableFuture<Long> result = new CompletableFuture<>();
    final AtomicBoolean interruptedAfter = new AtomicBoolean();
    private final Callable<Long> commit;

    Committer(Callable<Long> commit) {
      super("committer");
      this.commit = commit;
      setDaemon(true);
    }

    @Override
    public void run() {
      try {
        result.complete(commit.call());
      } catch (Throwable t) {
        result.completeExceptionally(t);
      } finally {
        interruptedAfter.set(Thread.currentThread().isInterrupted());
      }
    }
  }

  // ---- back-off under a contended lock (CommitLoop.sleep) ----

  /** The commit loop of the running scenario (its pauses tell when it has backed off). */
  private CommitLoop loop;

  /**
   * Our attempt waits for a lock another committer holds; once it has it, a writer outside the lock
   * takes snapshot 1 right before our publish: a contended conflict, so the loop backs off, here
   * from a minimum of an hour.
   */
  private Committer contendedConflict(Map<String, String> options, String table) throws Exception {
    Map<String, String> all = new HashMap<>(options);
    all.put("lock.enabled", "true");
    all.put("lock.type", SharedInJvmLockFactory.IDENTIFIER);
    all.put("commit.min-retry-wait", "1 h");
    all.put("commit.max-retry-wait", "1 h");
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours =
        catalog(io, all).createTable(new Identifier("db", table), schema(Map.of()));
    FileStoreTable other =
        catalog(new LocalFileIO(), Map.of("commit.strategy", "atomic-create"))
            .getTable(new Identifier("db", table));
    AtomicBoolean raced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && raced.compareAndSet(false, true)) {
            append(other, "other", 1, 7);
          }
        });
    var waiting = SharedInJvmLockFactory.waitingAcquire("db." + table);
    loop = new CommitLoop(ours, "ours");
    Committer committer =
        new Committer(() -> loop.commit(CommitKind.APPEND, List.of(), 1, null, null));
    Lease held = SharedInJvmLockFactory.SHARED.acquire("db." + table, Duration.ZERO).orElseThrow();
    try {
      committer.start();
      assertThat(waiting.await(GUARD_MS, TimeUnit.MILLISECONDS)).isTrue();
    } finally {
      held.close();
    }
    return committer;
  }

  @Test
  void aBackOffUnderAContendedLockEndsAtTheCommitTimeout() throws Exception {
    Committer committer =
        contendedConflict(Map.of("commit.timeout", TIMEOUT.toMillis() + " ms"), "backoff");

    // Backed off until the timeout (not the half hour or more drawn), caught up, landed on 1.
    assertThat(committer.result.get(GUARD_MS, TimeUnit.MILLISECONDS)).isEqualTo(2);
    assertThat(loop.pauses()).singleElement().satisfies(p -> assertThat(p.backoff()).isTrue());
  }

  @Test
  void anInterruptDuringTheBackOffFailsTheCommitAndKeepsTheFlag() throws Exception {
    Committer committer = contendedConflict(Map.of(), "interruptbackoff");
    awaitSleeping(committer, () -> !loop.pauses().isEmpty());

    committer.interrupt();

    assertFailsInterrupted(committer);
    assertThat(loop.pauses()).singleElement().satisfies(p -> assertThat(p.backoff()).isTrue());
  }

  /** Waiting for the lock (before anything is written under it), the commit is interrupted. */
  @Test
  void anInterruptWhileWaitingForTheLockFailsTheCommitAndKeepsTheFlag() throws Exception {
    Map<String, String> locked =
        Map.of("lock.enabled", "true", "lock.type", SharedInJvmLockFactory.IDENTIFIER);
    FileStoreTable ours =
        catalog(new LocalFileIO(), locked)
            .createTable(new Identifier("db", "ilock"), schema(Map.of()));
    var waiting = SharedInJvmLockFactory.waitingAcquire("db.ilock");
    CommitLoop waiter = new CommitLoop(ours, "ours");
    Committer committer =
        new Committer(() -> waiter.commit(CommitKind.APPEND, List.of(), 1, null, null));
    Lease held = SharedInJvmLockFactory.SHARED.acquire("db.ilock", Duration.ZERO).orElseThrow();
    try {
      committer.start();
      assertThat(waiting.await(GUARD_MS, TimeUnit.MILLISECONDS)).isTrue();
      committer.interrupt();
      committer.join(GUARD_MS);
    } finally {
      held.close();
    }

    assertThat(committer.isAlive()).as("the committer stopped").isFalse();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    committer.result.whenComplete((id, t) -> failure.set(t));
    assertThat(failure.get())
        .isInstanceOf(CommitInterruptedException.class)
        .hasMessageContaining("Interrupted while waiting for the lock of")
        .hasMessageContaining("nothing was committed");
    assertThat(committer.interruptedAfter).as("the interrupt flag is kept").isTrue();
    assertThat(ours.snapshotManager().latestId()).isEmpty();
  }

  // ---- the wait for a winner's snapshot (CommitLoop.awaitWinner) ----

  private FileStoreTable observer;

  /** Set once the winner's snapshot is gone (the other writer's appends are done). */
  private final AtomicBoolean winnerGone = new AtomicBoolean();

  /**
   * Snapshot 1 is another writer's; right before our snapshot-2 lands, the other writer takes 2; at
   * the second read of snapshot 2 through our store (the first is lock-api's read-back of the lost
   * race, the second the wait for the winner), the other writer appends twice more and expiration
   * keeps only snapshot 4 (as in ExpiredWinnerRebaseTest): the winner never becomes readable to the
   * wait, which polls every {@code commit.min-retry-wait} for at most {@code commit.max-retry-wait}
   * (an hour). Returns the running committer; {@code reads} counts the reads of snapshot 2.
   */
  private Committer winnerExpires(Map<String, String> options, String table, AtomicInteger reads)
      throws Exception {
    Map<String, String> all = new HashMap<>(options);
    all.put("snapshot.num-retained.min", "1");
    all.put("snapshot.num-retained.max", "1");
    all.put("snapshot.time-retained", "1 ms");
    all.put("commit.max-retry-wait", "1 h");
    FileStoreTable other =
        catalog(new LocalFileIO(), Map.of()).createTable(new Identifier("db", table), schema(all));
    observer = other;
    append(other, "other", 1, 1);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io, Map.of()).getTable(new Identifier("db", table));
    AtomicBoolean raced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-2") && raced.compareAndSet(false, true)) {
            append(other, "other", 2, 2);
          }
        });
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (raced.get() && path.name().equals("snapshot-2") && reads.incrementAndGet() == 2) {
            append(other, "other", 3, 3);
            append(other, "other", 4, 4);
            assertThat(other.snapshotManager().log().listIds()).containsExactly(4L);
            winnerGone.set(true);
          }
        });
    List<dev.lockstep.engine.write.CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(100, "ours"));
      messages = write.prepareCommit();
    }
    Committer committer =
        new Committer(() -> ours.newCommit("ours").commit(1, messages).dataSnapshotId());
    committer.start();
    return committer;
  }

  @Test
  void theWaitForAWinnerThatNeverBecomesReadableEndsAtTheCommitTimeout() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    Committer committer =
        winnerExpires(
            Map.of("commit.timeout", TIMEOUT.toMillis() + " ms", "commit.min-retry-wait", "1 ms"),
            "winner",
            reads);

    // Waited until the timeout (not the hour), then rebased on the newest snapshot, 4.
    assertThat(committer.result.get(GUARD_MS, TimeUnit.MILLISECONDS)).isEqualTo(5);
    assertThat(reads).hasValueGreaterThanOrEqualTo(2);
    assertThat(observer.snapshotManager().get(5).commitUser()).isEqualTo("ours");
    assertThat(observer.newRead().readAll(observer.newScan().plan())).hasSize(5);
  }

  @Test
  void anInterruptDuringTheWaitForAWinnerFailsTheCommitAndKeepsTheFlag() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    // Polls every 10 minutes: after its first look the wait sleeps.
    Committer committer =
        winnerExpires(Map.of("commit.min-retry-wait", "10 min"), "iwinner", reads);
    awaitSleeping(committer, winnerGone::get);

    committer.interrupt();

    assertFailsInterrupted(committer);
    assertThat(observer.snapshotManager().latestId().getAsLong()).isEqualTo(4);
    assertThat(observer.snapshotManager().get(4).commitUser()).isEqualTo("other");
  }

  private static void awaitSleeping(Committer committer, java.util.function.BooleanSupplier ready)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GUARD_MS);
    while (!(ready.getAsBoolean() && committer.getState() == Thread.State.TIMED_WAITING)) {
      assertThat(System.nanoTime()).as("the committer reached its wait").isLessThan(deadline);
      assertThat(committer.result).as("the committer is still running").isNotDone();
      Thread.sleep(5);
    }
  }

  private static void assertFailsInterrupted(Committer committer) throws Exception {
    committer.join(GUARD_MS);
    assertThat(committer.isAlive()).as("the committer stopped").isFalse();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    committer.result.whenComplete((id, t) -> failure.set(t));
    assertThat(failure.get())
        .isInstanceOf(CommitInterruptedException.class)
        .hasMessageContaining("Interrupted between commit attempts; nothing was committed");
    assertThat(committer.interruptedAfter).as("the interrupt flag is kept").isTrue();
  }
}
