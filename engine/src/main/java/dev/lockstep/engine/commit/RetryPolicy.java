package dev.lockstep.engine.commit;

import dev.lockstep.engine.store.CoreOptions;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The wait before the next attempt of one commit after a snapshot conflict
 * (docs/engine.md#design-3-optimistic-commit, point 1: "retry at once with jitter; exponential
 * waits only while a lock is contended"; under a lock, the commit rebases under its lease and a
 * conflict means a writer outside the lock). One per commit; not thread-safe.
 *
 * <ul>
 *   <li><b>Jitter</b>, after a conflict on a lock-free strategy (atomic create, rename) or under a
 *       lock that was free when the attempt asked for it: another commit landed and ours only has
 *       to rebase, so it retries at once, after a random wait in [0, {@value #JITTER_MULTIPLE} ×
 *       {@code commit.min-retry-wait}] (at most {@code commit.max-retry-wait}) that de-synchronises
 *       committers that lost the same race. It never grows: waiting longer would only hand the next
 *       race to someone else.
 *   <li><b>Backoff</b>, after a conflict under a lock that another holder had when the attempt
 *       asked for it ({@code CommitAttempt.lockContended()}): committers are queueing on the lock
 *       service, so the wait doubles from {@code commit.min-retry-wait} with each such conflict in
 *       a row, up to {@code commit.max-retry-wait}, drawn in [bound / 2, bound] ("equal jitter": it
 *       grows for sure and still spreads the waiters). A conflict on a free lock starts again from
 *       the minimum.
 * </ul>
 */
final class RetryPolicy {

  /** The jitter after an uncontended conflict is at most this many times the minimum wait. */
  static final int JITTER_MULTIPLE = 2;

  /** One decided wait: its kind and the range it is drawn from, in nanoseconds. */
  record Pause(boolean backoff, long minNanos, long maxNanos) {

    /** A random wait in [{@code minNanos}, {@code maxNanos}]. */
    long drawNanos() {
      return minNanos + ThreadLocalRandom.current().nextLong(maxNanos - minNanos + 1);
    }
  }

  private final long minNanos;
  private final long maxNanos;
  private int contendedInARow;

  RetryPolicy(Duration minRetryWait, Duration maxRetryWait) {
    this.minNanos = minRetryWait.toNanos();
    this.maxNanos = maxRetryWait.toNanos();
  }

  static RetryPolicy of(CoreOptions options) {
    return new RetryPolicy(options.commitMinRetryWait(), options.commitMaxRetryWait());
  }

  /**
   * The wait after a snapshot conflict.
   *
   * @param lockContended whether the conflicting attempt found the table's lock held by another
   */
  Pause afterConflict(boolean lockContended) {
    if (!lockContended) {
      contendedInARow = 0;
      return new Pause(false, 0, Math.min(maxNanos, saturatedMultiply(minNanos, JITTER_MULTIPLE)));
    }
    int doublings = Math.min(contendedInARow, 62);
    contendedInARow++;
    long bound = Math.min(maxNanos, saturatedMultiply(minNanos, 1L << doublings));
    return new Pause(true, bound / 2, bound);
  }

  private static long saturatedMultiply(long a, long b) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    return high != 0 || low < 0 ? Long.MAX_VALUE : low;
  }
}
