package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In-process turns ({@code commit.in-process-turns}, {@link InProcessTurns}): two committers of one
 * JVM on one table, each through its own table object (as two jobs of one JVM would), lock-free
 * (atomic create on the local store). Committer A is held right before its snapshot-1 lands, and
 * committer B commits meanwhile. With turns, B waits for A's turn and builds on A's snapshot: no
 * conflict at all. Without turns (or when B waits its turn out), B takes snapshot 1 and A loses the
 * race and retries, as two processes do. Every case checks that each commit is in exactly one
 * snapshot.
 */
class InProcessTurnsTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable open(FileIO io, Map<String, String> options, boolean create)
      throws IOException {
    FileSystemCatalog catalog = new FileSystemCatalog(io, Path.of(dir.toString()), options);
    Identifier id = new Identifier("db", "t");
    return create
        ? catalog.createTable(id, Schema.newBuilder().column("n", DataType.bigint()).build())
        : catalog.getTable(id);
  }

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

  /** Waits (without asserting any timing) until {@code condition} holds, 60 s at most. */
  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
  }

  /**
   * A committer of this JVM on a new table with {@code options}, committing identifier 1 on its own
   * thread once {@link #start()}ed; the tests hold its table's turn ({@code turn.lock}) meanwhile.
   */
  private record Waiter(
      FileStoreTable table, InProcessTurns.Turn turn, CommitLoop loop, FutureTask<Long> commit) {

    void start() {
      new Thread(commit, "waiter").start();
    }
  }

  private Waiter waiter(Map<String, String> options) throws IOException {
    FileStoreTable t = open(new LocalFileIO(), options, true);
    CommitLoop loop = new CommitLoop(t, "waiter");
    return new Waiter(
        t,
        InProcessTurns.of(t.snapshotManager().log().directory().toString()),
        loop,
        new FutureTask<>(() -> loop.commit(CommitKind.APPEND, List.of(), 1, null, null)));
  }

  /**
   * Others taking the turn ahead of the waiter: a handoff every millisecond until {@code nanos} has
   * passed or {@code done} holds.
   */
  private static void handOffFor(InProcessTurns.Turn turn, long nanos, BooleanSupplier done)
      throws InterruptedException {
    long until = System.nanoTime() + nanos;
    while (!done.getAsBoolean() && System.nanoTime() < until) {
      turn.noteTaken();
      Thread.sleep(1);
    }
  }

  private record Outcome(CommitLoop a, long aId, CommitLoop b, long bId, ReentrantLock turn) {}

  /**
   * A commits identifier 1 through a store that holds its snapshot-1 create until B has queued for
   * the turn ({@code untilQueued}) or has committed; B commits identifier 1 as another user on
   * another thread.
   */
  private Outcome race(
      Map<String, String> aOptions, Map<String, String> bOptions, boolean untilQueued)
      throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable a = open(io, aOptions, true);
    FileStoreTable b = open(new LocalFileIO(), bOptions, false);
    ReentrantLock turn = InProcessTurns.of(a.snapshotManager().log().directory().toString()).lock;
    CommitLoop loopA = new CommitLoop(a, "a");
    CommitLoop loopB = new CommitLoop(b, "b");
    AtomicReference<CompletableFuture<Long>> commitB = new AtomicReference<>();
    AtomicBoolean held = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && held.compareAndSet(false, true)) {
            CompletableFuture<Long> b1 = commitAsync(loopB);
            commitB.set(b1);
            try {
              await(() -> (untilQueued && turn.hasQueuedThreads()) || b1.isDone());
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    long aId = loopA.commit(CommitKind.APPEND, List.of(), 1, null, null);
    long bId = commitB.get().get(60, TimeUnit.SECONDS);
    assertThat(a.snapshotManager().latestId().getAsLong()).isEqualTo(2);
    assertThat(a.snapshotManager().get(aId).commitUser()).isEqualTo("a");
    assertThat(a.snapshotManager().get(bId).commitUser()).isEqualTo("b");
    assertThat(List.of(aId, bId)).containsExactlyInAnyOrder(1L, 2L);
    a.close();
    b.close();
    return new Outcome(loopA, aId, loopB, bId, turn);
  }

  @Test
  void aCommitterOfTheSameJvmWaitsForTheTurnAndBuildsOnTheHoldersSnapshot() throws Exception {
    Outcome o = race(Map.of(), Map.of(), true);

    assertThat(o.aId()).isEqualTo(1);
    assertThat(o.bId()).isEqualTo(2);
    assertThat(o.a().retries()).isZero();
    assertThat(o.b().retries()).isZero();
    assertThat(o.a().turnsTaken()).isEqualTo(1);
    assertThat(o.b().turnsTaken()).isEqualTo(1);
    assertThat(o.a().turnsMissed() + o.b().turnsMissed()).isZero();
    assertThat(o.turn().isLocked()).isFalse();
  }

  /** B does not take turns (as a committer in another process): it races and wins, A retries. */
  @Test
  void withoutTurnsTheSameRaceIsLostAndRetriedAsAcrossProcesses() throws Exception {
    Outcome o = race(Map.of(), Map.of("commit.in-process-turns", "false"), false);

    assertThat(o.bId()).isEqualTo(1);
    assertThat(o.aId()).isEqualTo(2);
    assertThat(o.b().retries()).isZero();
    assertThat(o.a().retries()).isEqualTo(1);
    assertThat(o.a().pauses()).singleElement().satisfies(p -> assertThat(p.backoff()).isFalse());
    assertThat(o.b().turnsTaken()).isZero();
    assertThat(o.b().turnsMissed()).isZero();
    // A's second attempt takes the turn again.
    assertThat(o.a().turnsTaken()).isEqualTo(2);
    assertThat(o.turn().isLocked()).isFalse();
  }

  /** Neither takes turns: the race is the store's alone, as before the option. */
  @Test
  void turnsOffOnBothSidesRaceThroughTheStore() throws Exception {
    Map<String, String> off = Map.of("commit.in-process-turns", "false");
    Outcome o = race(off, off, false);

    assertThat(o.bId()).isEqualTo(1);
    assertThat(o.aId()).isEqualTo(2);
    assertThat(o.a().retries()).isEqualTo(1);
    assertThat(o.a().turnsTaken() + o.b().turnsTaken()).isZero();
  }

  /**
   * A turn nobody gets for a whole {@code commit.max-retry-wait} is given up: B stops waiting for A
   * (held in its publish), races and takes snapshot 1; A loses that race and retries, as without
   * turns.
   */
  @Test
  void aTurnNotHadInTimeRacesAsWithoutTurns() throws Exception {
    Map<String, String> shortWait = new HashMap<>();
    shortWait.put("commit.min-retry-wait", "1 ms");
    shortWait.put("commit.max-retry-wait", "1 ms");
    Outcome o = race(Map.of(), shortWait, false);

    assertThat(o.bId()).isEqualTo(1);
    assertThat(o.aId()).isEqualTo(2);
    assertThat(o.b().turnsMissed()).isEqualTo(1);
    assertThat(o.b().turnsTaken()).isZero();
    assertThat(o.b().retries()).isZero();
    assertThat(o.a().retries()).isEqualTo(1);
    assertThat(o.a().turnsTaken()).isEqualTo(2);
  }

  /**
   * While the turn keeps changing hands, a committer keeps waiting, however many slices of {@code
   * commit.max-retry-wait} that takes: it does not give up on a moving queue and race into it.
   */
  @Test
  void aCommitterKeepsWaitingWhileTheTurnChangesHands() throws Exception {
    Waiter w = waiter(Map.of("commit.min-retry-wait", "1 ms", "commit.max-retry-wait", "300 ms"));
    w.turn().lock.lock(); // other committers of this JVM hold the turn, one after the other
    try {
      w.start();
      await(w.turn().lock::hasQueuedThreads);
      // Five slices' worth of others taking turns.
      handOffFor(w.turn(), TimeUnit.MILLISECONDS.toNanos(1500), () -> false);
      assertThat(w.commit().isDone()).isFalse();
    } finally {
      w.turn().lock.unlock();
    }
    assertThat(w.commit().get(60, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(w.loop().turnsTaken()).isEqualTo(1);
    assertThat(w.loop().turnsMissed()).isZero();
    assertThat(w.loop().retries()).isZero();
    w.table().close();
  }

  /**
   * Passed over for {@code commit.max-retries} + 1 slices (the turn is not fair), a committer stops
   * waiting and races: here nobody publishes meanwhile, so it lands without the turn.
   */
  @Test
  void aCommitterPassedOverForTooManySlicesRaces() throws Exception {
    Waiter w =
        waiter(
            Map.of(
                "commit.min-retry-wait", "1 ms",
                "commit.max-retry-wait", "20 ms",
                "commit.max-retries", "1"));
    w.turn().lock.lock(); // others keep taking the turn ahead of it
    try {
      w.start();
      handOffFor(w.turn(), TimeUnit.SECONDS.toNanos(60), w.commit()::isDone);
      assertThat(w.commit().get(1, TimeUnit.SECONDS)).isEqualTo(1);
    } finally {
      w.turn().lock.unlock();
    }
    assertThat(w.loop().turnsMissed()).isEqualTo(1);
    assertThat(w.loop().turnsTaken()).isZero();
    assertThat(w.loop().retries()).isZero();
    w.table().close();
  }

  /**
   * A holder that stalls (the turn does not change hands) is waited for one slice of {@code
   * commit.max-retry-wait}, not for every slice {@code commit.max-retries} allows: the waiter then
   * races and, nobody publishing meanwhile, lands while the turn is still held. Here the slices
   * would add up to 200 s; the test holds the turn for at most 60.
   */
  @Test
  void aStalledHolderIsWaitedForOneSliceOnly() throws Exception {
    Waiter w =
        waiter(
            Map.of(
                "commit.min-retry-wait", "1 ms",
                "commit.max-retry-wait", "200 ms",
                "commit.max-retries", "1000"));
    w.turn().lock.lock(); // a holder that never hands the turn on
    try {
      w.start();
      await(w.commit()::isDone);
      assertThat(w.commit().isDone()).as("the waiter raced while the turn was still held").isTrue();
    } finally {
      w.turn().lock.unlock();
    }
    assertThat(w.commit().get(60, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(w.loop().turnsMissed()).isEqualTo(1);
    assertThat(w.loop().turnsTaken()).isZero();
    w.table().close();
  }

  /**
   * With {@code commit.timeout} set, a committer passed over while the turn keeps changing hands
   * waits until that timeout runs out, then races (and here lands, nobody publishing). It neither
   * gives up before the timeout (checked after 0.5 s of a 1.2 s timeout, with 300 ms slices) nor
   * waits on for the slices {@code commit.max-retries} would allow (about 5 min).
   */
  @Test
  void withACommitTimeoutAPassedOverCommitterWaitsUntilItRunsOutThenRaces() throws Exception {
    Waiter w =
        waiter(
            Map.of(
                "commit.min-retry-wait", "1 ms",
                "commit.max-retry-wait", "300 ms",
                "commit.max-retries", "1000",
                "commit.timeout", "1200 ms"));
    w.turn().lock.lock(); // others keep taking the turn ahead of it
    try {
      w.start();
      await(() -> w.turn().lock.hasQueuedThreads() || w.commit().isDone());
      handOffFor(w.turn(), TimeUnit.MILLISECONDS.toNanos(500), () -> false);
      assertThat(w.commit().isDone()).as("gave up the turn before commit.timeout").isFalse();
      handOffFor(w.turn(), TimeUnit.SECONDS.toNanos(60), w.commit()::isDone);
      assertThat(w.commit().isDone())
          .as("still waiting for the turn after commit.timeout")
          .isTrue();
    } finally {
      w.turn().lock.unlock();
    }
    assertThat(w.commit().get(1, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(w.loop().turnsMissed()).isEqualTo(1);
    assertThat(w.loop().turnsTaken()).isZero();
    w.table().close();
  }

  /** A committer interrupted while it waits for its turn commits nothing. */
  @Test
  void anInterruptWhileWaitingForTheTurnCommitsNothing() throws Exception {
    Waiter w = waiter(Map.of("commit.max-retry-wait", "10 min"));
    Thread committer = new Thread(w.commit(), "waiter");
    w.turn().lock.lock(); // another committer of this JVM holds the turn
    try {
      committer.start();
      await(w.turn().lock::hasQueuedThreads);
      assertThat(w.turn().lock.hasQueuedThreads()).isTrue();
      committer.interrupt();
      assertThatThrownBy(() -> w.commit().get(60, TimeUnit.SECONDS))
          .hasCauseInstanceOf(CommitInterruptedException.class)
          .hasStackTraceContaining("nothing was committed");
    } finally {
      w.turn().lock.unlock();
    }
    committer.join();
    assertThat(w.table().snapshotManager().latestId()).isEmpty();
    assertThat(w.loop().turnsTaken() + w.loop().turnsMissed()).isZero();
    w.table().close();
  }
}
