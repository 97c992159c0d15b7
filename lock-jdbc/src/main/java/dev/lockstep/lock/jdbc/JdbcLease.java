package dev.lockstep.lock.jdbc;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease on one row of the lock table, tied to one database session.
 *
 * <p>The lease keeps the connection it was acquired on (its <em>session</em>) and renews only on it:
 * the heartbeat every {@code lease-ttl/3}, and {@link #ensureHeld()} each time it is called. The pool
 * never swaps in a fresh connection behind the lease's back. So:
 *
 * <ol>
 *   <li>A renewal that fails (session killed, network error, no answer within {@code lease-ttl/3}) or
 *       that updates no row (the row expired in the database or was taken over) loses the lease for
 *       good: {@link #ensureHeld()} throws from then on, {@link #isHeld()} is false, {@link
 *       #timeLeft()} is zero.
 *   <li>Other clients can take the key once the row expires (at most {@code lease-ttl} after the last
 *       successful renewal), or at once when this lease's {@link #close()} frees the row.
 *   <li>{@link #timeLeft()} counts from the local {@code System.nanoTime()} taken just before the last
 *       successful renewal was sent. The database set the expiry to its own now plus the TTL, and its
 *       now came later than our send, so the local deadline never lies after the database's.
 * </ol>
 *
 * <p>Thread-safe; the session is used under one lock, so a heartbeat and an {@code ensureHeld()} never
 * interleave on it.
 */
final class JdbcLease implements Lease {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcLease.class);

  private final JdbcLockService service;
  private final LockKey key;
  private final String owner;
  private final long fencingToken;
  private final long sessionId;
  private final long ttlNanos;
  private final ReentrantLock sessionLock = new ReentrantLock();

  /** The session; {@code null} once lost or closed. Guarded by {@link #sessionLock}. */
  private Connection session;
  private volatile long deadlineNanos;
  /** Why the lease is gone; {@code null} while held. Set once. */
  private volatile String lostReason;
  private volatile Exception lostCause;
  private volatile boolean closed;
  private volatile ScheduledFuture<?> heartbeat;

  JdbcLease(JdbcLockService service, LockKey key, String owner, long fencingToken, long sessionId,
      Connection session, long deadlineNanos, Duration ttl) {
    this.service = service;
    this.key = key;
    this.owner = owner;
    this.fencingToken = fencingToken;
    this.sessionId = sessionId;
    this.session = session;
    this.deadlineNanos = deadlineNanos;
    this.ttlNanos = ttl.toNanos();
  }

  void startHeartbeat(ScheduledFuture<?> future) {
    this.heartbeat = future;
    if (closed || lostReason != null) {
      future.cancel(false);
    }
  }

  @Override
  public String key() {
    return key.key();
  }

  @Override
  public long fencingToken() {
    return fencingToken;
  }

  /** The owner id written in the row: unique to this acquisition. */
  String owner() {
    return owner;
  }

  /** The database session this lease lives on ({@code CONNECTION_ID()} / {@code pg_backend_pid()}). */
  long sessionId() {
    return sessionId;
  }

  @Override
  public Duration timeLeft() {
    if (lostReason != null || closed) {
      return Duration.ZERO;
    }
    long left = deadlineNanos - System.nanoTime();
    return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
  }

  @Override
  public boolean isHeld() {
    return !timeLeft().isZero();
  }

  /**
   * Renews the lease on its session and returns when the database confirmed this holder still owns the
   * row; the lease then has a full TTL left.
   *
   * @throws LockLostException when released, lost before, or the renewal fails now; forever after
   */
  @Override
  public void ensureHeld() throws LockLostException {
    renew("ensureHeld");
  }

  /** One heartbeat: renew, and on failure only record the loss (the holder learns in ensureHeld). */
  void heartbeat() {
    try {
      renew("heartbeat");
    } catch (LockLostException e) {
      // Recorded in lostReason and logged once by markLost.
    } catch (RuntimeException e) {
      markLost("the heartbeat failed unexpectedly: " + e, e);
    }
  }

  private void renew(String caller) throws LockLostException {
    sessionLock.lock();
    try {
      if (closed) {
        throw new LockLostException("The lease on '" + key.key() + "' was released.");
      }
      if (lostReason != null) {
        throw lost();
      }
      long sent = System.nanoTime();
      if (sent - deadlineNanos >= 0) {
        markLost("no renewal succeeded within " + Durations.format(Duration.ofNanos(ttlNanos))
            + ", so the row may have expired in the database", null);
        throw lost();
      }
      int renewed;
      try {
        renewed = service.table().renew(session, key.hash(), owner);
      } catch (SQLException e) {
        markLost("the " + caller + " renewal on session " + sessionId + " failed (" + e + ")", e);
        throw lost();
      }
      if (renewed != 1) {
        markLost("the " + caller + " renewal found the row expired in the database or taken over",
            null);
        throw lost();
      }
      deadlineNanos = sent + ttlNanos;
    } finally {
      sessionLock.unlock();
    }
  }

  private LockLostException lost() {
    return new LockLostException("Lost the lock on '" + key.key() + "' (fencing token " + fencingToken
        + "): " + lostReason + ". Do not publish under this lease.", lostCause);
  }

  /** Records the loss once, stops the heartbeat and gives the session back (evicted on a failure). */
  private void markLost(String reason, Exception failure) {
    sessionLock.lock();
    try {
      if (lostReason != null || closed) {
        return;
      }
      lostCause = failure;
      lostReason = reason;
      LOG.warn("Lost the JDBC lock on '{}' (fencing token {}, owner {}): {}", key.key(), fencingToken,
          owner, reason);
      cancelHeartbeat();
      if (session != null) {
        service.giveBack(session, failure != null);
        session = null;
      }
    } finally {
      sessionLock.unlock();
    }
  }

  private void cancelHeartbeat() {
    ScheduledFuture<?> future = heartbeat;
    if (future != null) {
      future.cancel(false);
    }
  }

  /**
   * Frees the row if this lease still owns it, keeping its fencing token. A lease already lost still
   * tries, on a fresh connection: the row may be ours until it expires, and the owner check leaves a
   * newer holder's row alone.
   *
   * @throws IOException when the release could not be confirmed; the row then frees itself within
   *     {@code lease-ttl}
   */
  @Override
  public void close() throws IOException {
    sessionLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      cancelHeartbeat();
      Connection connection = session;
      session = null;
      try {
        service.release(this, connection);
      } finally {
        service.forget(this);
      }
    } finally {
      sessionLock.unlock();
    }
  }

  LockKey lockKey() {
    return key;
  }

  @Override
  public String toString() {
    return "JdbcLease{key=" + key.key() + ", fencingToken=" + fencingToken + ", owner=" + owner
        + ", session=" + sessionId + (lostReason != null ? ", lost: " + lostReason : "")
        + (closed ? ", released" : "") + "}";
  }
}
