package dev.lockstep.lock;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine every {@link Lease} of a lock backend shares: held, in doubt, lost, released; a
 * local deadline that only confirmed contact with the lock service moves; a heartbeat; fencing
 * token and key. A backend supplies only its primitive operations:
 *
 * <ul>
 *   <li>{@link #heartbeat()}: one renewal (or ownership check) sent to the service; it reports the
 *       answer with {@link #confirmed(long)} or {@link #markLost(String, Throwable)};
 *   <li>{@link #release(State)}: free the backend's lock, knowing what state the lease was in;
 *   <li>{@link #describe()} and {@link #expiredReason(Duration)}: the words of its error messages;
 *   <li>optionally {@link #localDoubt()} (a cheap local sign that the lease is in doubt, such as a
 *       disconnected client), {@link #renewBeforeUse()} (a synchronous renewal in {@link
 *       #ensureHeld()}) and {@link #afterLoss()} (give back resources once no longer held).
 * </ul>
 *
 * <p>States, each change final and only forward:
 *
 * <ol>
 *   <li>held: the last confirmed contact was sent less than the validity ago (the service refreshed
 *       the lock no earlier than that send, so it cannot free the lock before {@code send +
 *       validity}: the local deadline never lies after the service's);
 *   <li>in doubt: the deadline passed without a confirmation, or the backend saw a local sign of
 *       trouble. The service may already have given the key to another holder, so this holder must
 *       stop; {@link #close()} still frees what may be ours;
 *   <li>lost: the service said the lock is gone or belongs to someone else;
 *   <li>released: {@link #close()} ran.
 * </ol>
 *
 * <p>A confirmation that arrives after the deadline does not revive the lease: during the gap
 * another holder may have taken the key. The first reason a lease stopped being held is kept, and a
 * later escalation to lost is appended, so {@link LockLostException}'s message tells the whole
 * story.
 */
public abstract class AbstractLease implements Lease {

  private static final Logger LOG = LoggerFactory.getLogger(AbstractLease.class);
  private static final long MIN_HEARTBEAT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /** The lease's states, in the only order it moves through them. */
  protected enum State {
    HELD("held"),
    IN_DOUBT("in doubt"),
    LOST("lost"),
    RELEASED("released");

    private final String words;

    State(String words) {
      this.words = words;
    }

    @Override
    public String toString() {
      return words;
    }
  }

  private final String key;
  private final long fencingToken;
  private final long validityNanos;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * Guarded by {@code this} for writes; {@link System#nanoTime()} after which the lease is in
   * doubt.
   */
  private volatile long deadlineNanos;

  private volatile State state = State.HELD;
  private volatile String problem;
  private volatile Throwable cause;
  private volatile ScheduledFuture<?> heartbeat;

  /**
   * @param validity how long after a confirmed contact was sent the service keeps the lock at least
   *     (session timeout, lease TTL, lock timeout)
   * @param deadlineNanos the {@link System#nanoTime()} until which the acquisition's own
   *     confirmation keeps the lease held: at most the acquiring request's send time plus {@code
   *     validity}
   */
  protected AbstractLease(String key, long fencingToken, Duration validity, long deadlineNanos) {
    this.key = key;
    this.fencingToken = fencingToken;
    this.validityNanos = validity.toNanos();
    this.deadlineNanos = deadlineNanos;
  }

  @Override
  public final String key() {
    return key;
  }

  @Override
  public final long fencingToken() {
    return fencingToken;
  }

  @Override
  public final Duration timeLeft() {
    long left = refresh();
    return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
  }

  @Override
  public final boolean isHeld() {
    return refresh() > 0;
  }

  /**
   * Returns when the lease is held, after {@link #renewBeforeUse()} where the backend renews
   * synchronously.
   *
   * @throws LockLostException once the lease is in doubt, lost or released, and forever after
   */
  @Override
  public final void ensureHeld() throws LockLostException {
    if (refresh() > 0) {
      renewBeforeUse();
      if (refresh() > 0) {
        return;
      }
    }
    throw lostException();
  }

  /**
   * Frees the lock once; later calls do nothing. The heartbeat stops first, then {@link
   * #release(State)} runs with the state the lease had.
   *
   * @throws IOException when the backend could not confirm the release; the service then frees the
   *     lock within its holder-death bound
   */
  @Override
  public final void close() throws IOException {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    State before;
    synchronized (this) {
      before = state;
      state = State.RELEASED;
      if (problem == null) {
        problem = "it was released by close()";
      }
      cancelHeartbeat();
    }
    release(before);
  }

  /** The state right now, without re-checking the deadline. */
  protected final State state() {
    return state;
  }

  /**
   * Starts the heartbeat: {@link #heartbeat()} every {@code period} (at least 20 ms) while the
   * lease is held; it stops by itself once the lease is not.
   *
   * @throws java.util.concurrent.RejectedExecutionException when the executor was shut down
   */
  protected final void startHeartbeat(ScheduledExecutorService executor, Duration period) {
    long nanos = Math.max(MIN_HEARTBEAT_NANOS, period.toNanos());
    heartbeat = executor.scheduleWithFixedDelay(this::beat, nanos, nanos, TimeUnit.NANOSECONDS);
    if (state != State.HELD) {
      cancelHeartbeat();
    }
  }

  /**
   * The service confirmed ownership with a request sent at {@code sentNanos}: the deadline moves to
   * {@code sentNanos + validity} unless it was later already. Ignored once the lease is not held,
   * and once the deadline has passed (a late answer cannot revive it).
   */
  protected final void confirmed(long sentNanos) {
    synchronized (this) {
      if (state != State.HELD || System.nanoTime() - deadlineNanos >= 0) {
        return;
      }
      long candidate = sentNanos + validityNanos;
      if (candidate - deadlineNanos > 0) {
        deadlineNanos = candidate;
      }
    }
  }

  /** Puts the lease in doubt (no effect once in doubt, lost or released). */
  protected final void markInDoubt(String reason, Throwable why) {
    transition(State.IN_DOUBT, reason, why);
  }

  /** Marks the lease lost for good (no effect once lost or released). */
  protected final void markLost(String reason, Throwable why) {
    transition(State.LOST, reason, why);
  }

  /** The exception {@link #ensureHeld()} throws now: names the lease, its state and why. */
  protected final LockLostException lostException() {
    return new LockLostException(
        describe() + " is " + state + ": " + problem + ". Do not publish anything under it.",
        cause);
  }

  /** One renewal or ownership check, run on the heartbeat thread while the lease is held. */
  protected abstract void heartbeat();

  /**
   * Frees the backend's lock (a lease frees only its own). Runs once, from {@link #close()}.
   *
   * @param before the state the lease was in when {@link #close()} was called
   */
  protected abstract void release(State before) throws IOException;

  /** Names the lease in messages, e.g. "The ZooKeeper lock 'db.t' (node ..., token 7)". */
  protected abstract String describe();

  /**
   * Why a lease whose deadline passed is in doubt, given the time since its last confirmed send.
   */
  protected abstract String expiredReason(Duration sinceContact);

  /**
   * A cheap, non-blocking local sign that the lease is in doubt (a disconnected client), or {@code
   * null}. Called on every state check while held.
   */
  protected String localDoubt() {
    return null;
  }

  /**
   * A synchronous renewal run by {@link #ensureHeld()} while the lease is held, for backends that
   * confirm ownership on each use; it reports through {@link #confirmed(long)} or {@link
   * #markLost(String, Throwable)}. Does nothing by default.
   */
  protected void renewBeforeUse() {}

  /**
   * Runs once, on the thread that saw the lease stop being held (never under the lease's monitor),
   * to give back what only a held lease needs. Must not block for long. Does nothing by default.
   */
  protected void afterLoss() {}

  private long refresh() {
    if (state != State.HELD) {
      return 0;
    }
    String doubt = localDoubt();
    if (doubt != null) {
      markInDoubt(doubt, null);
      return 0;
    }
    long now = System.nanoTime();
    long left = deadlineNanos - now;
    if (left <= 0) {
      markInDoubt(expiredReason(Duration.ofNanos(now - (deadlineNanos - validityNanos))), null);
      return 0;
    }
    return state == State.HELD ? left : 0;
  }

  private void beat() {
    if (refresh() <= 0) {
      cancelHeartbeat();
      return;
    }
    try {
      heartbeat();
    } catch (RuntimeException e) {
      LOG.warn("Heartbeat of {} failed unexpectedly", this, e);
    }
  }

  private void transition(State next, String reason, Throwable why) {
    boolean wasHeld;
    synchronized (this) {
      if (state.ordinal() >= next.ordinal()) {
        return;
      }
      wasHeld = state == State.HELD;
      if (wasHeld || next == State.LOST) {
        problem = problem == null ? reason : problem + "; then " + reason;
        if (cause == null) {
          cause = why;
        }
      }
      state = next;
      cancelHeartbeat();
    }
    LOG.warn("{} is now {}: {}", describe(), next, reason);
    if (wasHeld) {
      afterLoss();
    }
  }

  private void cancelHeartbeat() {
    ScheduledFuture<?> future = heartbeat;
    if (future != null) {
      future.cancel(false);
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + describe() + ", " + state + "}";
  }
}
