package dev.lockstep.lock.jdbc;

import dev.lockstep.lock.AbstractLease;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A lease on one row of the lock table, tied to one database session. The states are {@link
 * AbstractLease}'s; the primitives are the owner-guarded renewal and release of the row.
 *
 * <p>The lease keeps the connection it was acquired on (its <em>session</em>) and renews only on
 * it: the heartbeat every {@code lease-ttl/3}, and {@link #ensureHeld()} each time it is called.
 * The pool never swaps in a fresh connection behind the lease's back. So:
 *
 * <ol>
 *   <li>A renewal that fails (session killed, network error, no answer within {@code lease-ttl/3})
 *       or that updates no row (the row expired in the database or was taken over) loses the lease
 *       for good: {@link #ensureHeld()} throws from then on, {@link #isHeld()} is false, {@link
 *       #timeLeft()} is zero.
 *   <li>Other clients can take the key once the row expires (at most {@code lease-ttl} after the
 *       last successful renewal), or at once when this lease's {@link #close()} frees the row.
 *   <li>{@link #timeLeft()} counts from the local {@code System.nanoTime()} taken just before the
 *       last successful renewal was sent. The database set the expiry to its own now plus the TTL,
 *       and its now came later than our send, so the local deadline never lies after the
 *       database's.
 * </ol>
 *
 * <p>Thread-safe; the session is used under one lock, so a heartbeat and an {@code ensureHeld()}
 * never interleave on it. A lease lost (or in doubt) gives its session back to the pool (evicted
 * when it failed) as soon as nothing uses it; its release then runs on a fresh connection. A lease
 * closed while held releases the row on its session, then gives the session back.
 *
 * <p>Who gives the session back after a loss: the thread that saw the loss, when it can take the
 * session lock at once ({@link #afterLoss()}); otherwise the renewal holding the session, when it
 * ends. The renewal decides and unlocks under the lease's monitor, where every state change is
 * made, so a loss is either seen by that decision or comes after the unlock, when its own thread
 * finds the session lock free. No lost lease keeps its session until {@link #close()}.
 */
final class JdbcLease extends AbstractLease {

  private final JdbcLockService service;
  private final LockKey key;
  private final String owner;
  private final long sessionId;
  private final long ttlNanos;

  /** Whether the session holds the key's named lock ({@link WakeLock}), freed after the row. */
  private final boolean queued;

  private final ReentrantLock sessionLock = new ReentrantLock();

  /** The session; {@code null} once given back. Guarded by {@link #sessionLock}. */
  private Connection session;

  /** Whether the session failed and must be evicted. Guarded by {@link #sessionLock}. */
  private boolean sessionBroken;

  JdbcLease(
      JdbcLockService service,
      LockKey key,
      String owner,
      long fencingToken,
      long sessionId,
      Connection session,
      boolean queued,
      long deadlineNanos,
      Duration ttl) {
    super(key.key(), fencingToken, ttl, deadlineNanos);
    this.service = service;
    this.key = key;
    this.owner = owner;
    this.sessionId = sessionId;
    this.session = session;
    this.queued = queued;
    this.ttlNanos = ttl.toNanos();
  }

  /** Renews every third of the TTL on {@code executor}. */
  void startHeartbeat(ScheduledExecutorService executor) {
    startHeartbeat(executor, Duration.ofNanos(ttlNanos / 3));
  }

  /** The owner id written in the row: unique to this acquisition. */
  String owner() {
    return owner;
  }

  /**
   * The database session this lease lives on ({@code CONNECTION_ID()} / {@code pg_backend_pid()}).
   */
  long sessionId() {
    return sessionId;
  }

  /** Renews on the session: a full TTL left when {@link #ensureHeld()} returns. */
  @Override
  protected void renewBeforeUse() {
    renew("ensureHeld");
  }

  @Override
  protected void heartbeat() {
    renew("heartbeat");
  }

  private void renew(String caller) {
    sessionLock.lock();
    try {
      if (session == null || state() != State.HELD) {
        return;
      }
      long sent = System.nanoTime();
      int renewed;
      try {
        renewed = service.table().renew(session, key.hash(), owner);
      } catch (SQLException e) {
        sessionBroken = true;
        markLost("the " + caller + " renewal on session " + sessionId + " failed (" + e + ")", e);
        return;
      }
      if (renewed != 1) {
        markLost(
            "the " + caller + " renewal found the row expired in the database or taken over", null);
        return;
      }
      confirmed(sent);
    } finally {
      synchronized (this) {
        giveBackIfLost();
        sessionLock.unlock();
      }
    }
  }

  @Override
  protected void afterLoss() {
    // A renewal under way holds the session; it gives the session back when it ends.
    if (sessionLock.tryLock()) {
      try {
        giveBackIfLost();
      } finally {
        sessionLock.unlock();
      }
    }
  }

  /**
   * Gives the session back once the lease is lost or in doubt, or the session failed (it is then
   * evicted, never reused, also not by the release). A lease being closed keeps a working session
   * for {@link #release(State)}, which frees the row on it first. Call under {@link #sessionLock}.
   */
  private void giveBackIfLost() {
    State state = state();
    boolean lost = state == State.IN_DOUBT || state == State.LOST;
    if (session != null && (lost || sessionBroken)) {
      service.giveBack(session, sessionBroken, queuedFor());
      session = null;
    }
  }

  /** The key whose named lock the session holds, or {@code null}. */
  private LockKey queuedFor() {
    return queued ? key : null;
  }

  @Override
  protected String expiredReason(Duration sinceContact) {
    return "no renewal succeeded within "
        + Durations.format(Duration.ofNanos(ttlNanos))
        + ", so the row may have expired in the database";
  }

  @Override
  protected String describe() {
    return "The JDBC lock on '"
        + key.key()
        + "' (fencing token "
        + fencingToken()
        + ", owner "
        + owner
        + ", session "
        + sessionId
        + ")";
  }

  /**
   * Frees the row if this lease still owns it, keeping its fencing token. A lease already lost
   * still tries, on a fresh connection: the row may be ours until it expires, and the owner check
   * leaves a newer holder's row alone.
   *
   * @throws IOException when the release could not be confirmed; the row then frees itself within
   *     {@code lease-ttl}
   */
  @Override
  protected void release(State before) throws IOException {
    sessionLock.lock();
    try {
      // Held until close(): the session is still here, and the row is freed on it before its named
      // lock. Lost or in doubt before: whoever saw the loss gave the session back (see the class
      // comment) and the row is freed on a fresh connection, unless this release took the session
      // lock before the loss's own thread tried it; then the row is freed on the session, like a
      // held lease's (the owner check leaves a newer holder's row alone).
      Connection connection = session;
      session = null;
      try {
        service.release(this, connection, queued);
      } finally {
        service.forget(this);
      }
    } finally {
      sessionLock.unlock();
    }
  }
}
