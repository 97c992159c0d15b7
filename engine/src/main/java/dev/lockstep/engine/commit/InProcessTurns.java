package dev.lockstep.engine.commit;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Turns of the lock-free committers of one JVM on one table (option {@code
 * commit.in-process-turns}): a lock per snapshot directory, held by an attempt from its catch-up to
 * its publish, so that two committers in this process never race each other for a snapshot id (the
 * one waiting builds on the holder's snapshot instead of losing to it and trying again). Committers
 * in other processes are not affected: they still race through the store's primitive, and a
 * conflict with them is handled as before.
 *
 * <p>The turn only orders; it never stands in for the store's primitive, so it cannot weaken a
 * guarantee. A committer waits for it as long as it keeps changing hands (at most {@code
 * commit.max-retries} + 1 waits of {@code commit.max-retry-wait}); when one wait passes without
 * anyone getting it (a holder paused in a slow publish, say), the committer goes ahead and races as
 * it would without turns. One turn per table directory ever committed to in this JVM (a few dozen
 * bytes each) is kept for the JVM's life.
 */
final class InProcessTurns {

  private static final ConcurrentHashMap<String, Turn> TURNS = new ConcurrentHashMap<>();

  private InProcessTurns() {}

  /** The turn of the table whose snapshots are in {@code snapshotDirectory}. */
  static Turn of(String snapshotDirectory) {
    return TURNS.computeIfAbsent(snapshotDirectory, k -> new Turn());
  }

  /** One table's turn: a lock and how many times it was taken. */
  static final class Turn {
    // Not fair: a committer that is running when the turn is released takes it at once, instead of
    // handing it to the longest waiter, which on oversubscribed cores may not be scheduled for
    // milliseconds (a convoy). Measured at load 26 on 2 cores with a fair lock: 0 conflicts, but
    // fewer commits/s than racing. A waiter that gets no turn for a whole slice races instead,
    // and a committer losing races claims priority (ContentionHint), as without turns.
    final ReentrantLock lock = new ReentrantLock(false);
    private final AtomicLong taken = new AtomicLong();

    /**
     * Takes the turn, waiting in slices of {@code sliceNanos} as long as someone else got it during
     * the previous slice, for at most {@code maxSlices} slices and {@code budgetNanos} in all (the
     * lock is not fair: a waiter passed over that long races instead, and then claims priority like
     * any committer that lost a race).
     *
     * @return whether this thread now holds it (the caller must then {@link #release} it)
     * @throws InterruptedException while waiting; the turn is not held then
     */
    boolean take(long sliceNanos, long budgetNanos, int maxSlices) throws InterruptedException {
      long start = System.nanoTime();
      for (int slice = 1; ; slice++) {
        long seen = taken.get();
        long left = budgetNanos - (System.nanoTime() - start);
        if (lock.tryLock(Math.max(0, Math.min(sliceNanos, left)), TimeUnit.NANOSECONDS)) {
          taken.incrementAndGet();
          return true;
        }
        if (taken.get() == seen
            || slice >= maxSlices
            || budgetNanos - (System.nanoTime() - start) <= 0) {
          // Nobody got it for a whole slice (a stalled holder), passed over too long, or out of
          // time.
          return false;
        }
      }
    }

    void release() {
      lock.unlock();
    }

    /** Counts a handoff as if another committer had taken the turn (for tests). */
    void noteTaken() {
      taken.incrementAndGet();
    }
  }
}
