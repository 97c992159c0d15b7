package dev.lockstep.lock.hive;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A held metastore lock: one EXCLUSIVE table-level lock, identified by its metastore lock id.
 *
 * <p>States: <em>held</em> (after acquire; heartbeats keep it), <em>lost</em> (a heartbeat was answered
 * "no such lock" or "aborted", or no heartbeat was confirmed within the lock timeout: the metastore may
 * have removed it and granted it to another holder), <em>closed</em> (after {@link #close()}). Lost and
 * closed are final.
 *
 * <p>Time is measured from the moment the last confirmed heartbeat (or the acquiring call) was
 * <em>sent</em>, on this JVM's monotonic clock: the metastore refreshed the lock no earlier than that,
 * so it cannot time the lock out before {@code sent + lockTimeout} (clock rates assumed equal).
 */
final class HiveLease implements Lease {

  private final HiveLockService service;
  private final String key;
  private final HiveLockService.Target target;
  private final long lockId;
  private final Duration lockTimeout;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile long lastConfirmedSentNanos;
  private volatile String lostReason;
  private volatile Throwable lostCause;
  private volatile ScheduledFuture<?> heartbeat;

  HiveLease(HiveLockService service, String key, HiveLockService.Target target, long lockId,
      Duration lockTimeout, long acquiredSentNanos) {
    this.service = service;
    this.key = key;
    this.target = target;
    this.lockId = lockId;
    this.lockTimeout = lockTimeout;
    this.lastConfirmedSentNanos = acquiredSentNanos;
  }

  @Override
  public String key() {
    return key;
  }

  HiveLockService.Target target() {
    return target;
  }

  /** The metastore lock id: a database sequence, so every later lock of any key gets a larger one. */
  @Override
  public long fencingToken() {
    return lockId;
  }

  long lockId() {
    return lockId;
  }

  @Override
  public Duration timeLeft() {
    if (closed.get() || lostReason != null) {
      return Duration.ZERO;
    }
    Duration left = lockTimeout.minusNanos(System.nanoTime() - lastConfirmedSentNanos);
    return left.isNegative() ? Duration.ZERO : left;
  }

  @Override
  public boolean isHeld() {
    return !timeLeft().isZero();
  }

  @Override
  public void ensureHeld() throws LockLostException {
    if (closed.get()) {
      throw new LockLostException("The Hive lock on '" + key + "' (lock id " + lockId
          + ") was released by its holder.");
    }
    String reason = lostReason;
    if (reason != null) {
      throw new LockLostException(reason, lostCause);
    }
    if (timeLeft().isZero()) {
      markLost("The Hive lock on '" + key + "' (lock id " + lockId + ") is in doubt: no heartbeat"
          + " was confirmed by the metastore within its lock timeout 'metastore.txn.timeout' ("
          + Durations.format(lockTimeout) + "), so it may have been given to another holder.", null);
      throw new LockLostException(lostReason);
    }
  }

  /** Called by the heartbeat after the metastore confirmed a heartbeat sent at {@code sentNanos}. */
  void confirmed(long sentNanos) {
    if (sentNanos - lastConfirmedSentNanos > 0 && lostReason == null) {
      // Past the timeout the lock may already have been given away; a late answer cannot revive it.
      if (System.nanoTime() - lastConfirmedSentNanos < lockTimeout.toNanos()) {
        lastConfirmedSentNanos = sentNanos;
      }
    }
  }

  /** Marks the lease lost for good; the first reason wins. */
  synchronized void markLost(String reason, Throwable cause) {
    if (lostReason == null) {
      lostCause = cause;
      lostReason = reason;
    }
  }

  boolean isLost() {
    return lostReason != null;
  }

  boolean isClosed() {
    return closed.get();
  }

  void heartbeat(ScheduledFuture<?> future) {
    this.heartbeat = future;
  }

  /** Stops this lease's heartbeat; the lock then expires on the metastore after its timeout. */
  void stopHeartbeat() {
    ScheduledFuture<?> future = heartbeat;
    if (future != null) {
      future.cancel(false);
    }
  }

  /**
   * Stops the heartbeat and unlocks the lock id. Unlocking by id never touches another holder's lock.
   * A lock the metastore already removed counts as released.
   *
   * @throws IOException when the unlock could not be confirmed; the metastore removes the lock after
   *     its timeout
   */
  @Override
  public void close() throws IOException {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    stopHeartbeat();
    service.release(this);
  }

  @Override
  public String toString() {
    return "HiveLease{key=" + key + ", lockId=" + lockId + ", timeLeft=" + timeLeft() + "}";
  }
}
