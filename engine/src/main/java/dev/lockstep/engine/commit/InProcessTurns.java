package dev.lockstep.engine.commit;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Turns of the lock-free committers of one JVM on one table (option {@code
 * commit.in-process-turns}): a fair lock per snapshot directory, held by an attempt from its
 * catch-up to its publish, so that two committers in this process never race each other for a
 * snapshot id (the one waiting builds on the holder's snapshot instead of losing to it and trying
 * again). Committers in other processes are not affected: they still race through the store's
 * primitive, and a conflict with them is handled as before.
 *
 * <p>The turn only orders; it never stands in for the store's primitive, so it cannot weaken a
 * guarantee. It is waited for at most a bound ({@code commit.max-retry-wait}); a committer that
 * does not get it in time (a holder paused in a slow publish, say) goes ahead and races as it would
 * without turns. One lock per table directory ever committed to in this JVM (a few dozen bytes
 * each) is kept for the JVM's life.
 */
final class InProcessTurns {

  private static final ConcurrentHashMap<String, ReentrantLock> TURNS = new ConcurrentHashMap<>();

  private InProcessTurns() {}

  /** The turn of the table whose snapshots are in {@code snapshotDirectory}. */
  static ReentrantLock of(String snapshotDirectory) {
    return TURNS.computeIfAbsent(snapshotDirectory, k -> new ReentrantLock(true));
  }

  /**
   * Takes {@code turn}, waiting at most {@code maxWaitNanos}.
   *
   * @return whether this thread now holds it (the caller must then unlock it)
   * @throws InterruptedException while waiting; the turn is not held then
   */
  static boolean take(ReentrantLock turn, long maxWaitNanos) throws InterruptedException {
    return turn.tryLock(Math.max(0, maxWaitNanos), TimeUnit.NANOSECONDS);
  }
}
