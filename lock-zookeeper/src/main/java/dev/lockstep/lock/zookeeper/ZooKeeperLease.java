package dev.lockstep.lock.zookeeper;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A held ZooKeeper lock: the ephemeral sequential znode at {@link #nodePath()} that sorts first among
 * the key's lock nodes, owned by one session.
 *
 * <p>States, each change final:
 *
 * <ol>
 *   <li>held: the client is connected, the node exists with our session as owner as of the last
 *       heartbeat, and less than the session timeout has passed since that contact;
 *   <li>in doubt: the connection was suspended, or no contact for a whole session timeout. The session
 *       may already be expired on the server, so the holder must stop; the node may still exist, and
 *       {@link #close()} deletes it if so;
 *   <li>lost: the session expired, was replaced, or the node was deleted: others may hold the key;
 *   <li>released: {@link #close()} ran.
 * </ol>
 *
 * <p>The fencing token is the node's creation zxid ({@code czxid}); see the module README for why it
 * strictly increases per key across holders.
 */
final class ZooKeeperLease implements Lease {

  private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLease.class);

  private enum State { HELD, IN_DOUBT, LOST, RELEASED }

  private final String key;
  private final String nodePath;
  private final long fencingToken;
  private final long sessionId;
  private final long sessionTimeoutNanos;
  private final SharedCuratorClient client;
  private final Consumer<ZooKeeperLease> onClose;
  private final AtomicLong lastContactNanos;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile State state = State.HELD;
  private volatile String problem;
  private volatile ScheduledFuture<?> heartbeat;

  /**
   * @param contactNanos {@link System#nanoTime()} before the request that confirmed ownership was sent
   */
  ZooKeeperLease(String key, String nodePath, Stat stat, long contactNanos, Duration sessionTimeout,
      SharedCuratorClient client, Consumer<ZooKeeperLease> onClose) {
    this.key = key;
    this.nodePath = nodePath;
    this.fencingToken = stat.getCzxid();
    this.sessionId = stat.getEphemeralOwner();
    this.sessionTimeoutNanos = sessionTimeout.toNanos();
    this.client = client;
    this.onClose = onClose;
    this.lastContactNanos = new AtomicLong(contactNanos);
  }

  /**
   * Starts watching the node and heartbeating it every fifth of the session timeout. Called once,
   * after the lease is registered for connection-state changes.
   */
  void start() throws Exception {
    Watcher deleted = event -> {
      if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
        markLost("its lock node " + nodePath + " was deleted (session expired or an operator"
            + " removed it)");
      }
    };
    long sent = System.nanoTime();
    Stat stat = client.curator().checkExists().usingWatcher(deleted).forPath(nodePath);
    onOwnership(sent, stat);
    long period = Math.max(TimeUnit.MILLISECONDS.toNanos(20), sessionTimeoutNanos / 5);
    heartbeat = client.heartbeats().scheduleWithFixedDelay(this::sendHeartbeat, period, period,
        TimeUnit.NANOSECONDS);
  }

  @Override
  public String key() {
    return key;
  }

  /** The lock node, for diagnostics. */
  String nodePath() {
    return nodePath;
  }

  /** The session that owns the lock node. */
  long sessionId() {
    return sessionId;
  }

  @Override
  public long fencingToken() {
    return fencingToken;
  }

  @Override
  public Duration timeLeft() {
    long left = refresh();
    return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
  }

  @Override
  public boolean isHeld() {
    return refresh() > 0;
  }

  @Override
  public void ensureHeld() throws LockLostException {
    if (refresh() <= 0) {
      throw new LockLostException("The ZooKeeper lock '" + key + "' (node " + nodePath + ", token "
          + fencingToken + ") is " + describe(state) + ": " + problem
          + ". Do not publish anything under it.");
    }
  }

  /**
   * Re-checks the state (without blocking) and returns the guaranteed time left in nanoseconds, or
   * zero or less once the lease is not held. Latches "in doubt" when the client sees itself
   * disconnected before the suspension event arrived, or when contact is older than the session
   * timeout (a paused process).
   */
  private long refresh() {
    if (state != State.HELD) {
      return 0;
    }
    if (!client.isConnected()) {
      markInDoubt("the client is disconnected from ZooKeeper at '" + client.connectString() + "'");
      return 0;
    }
    long sinceContact = System.nanoTime() - lastContactNanos.get();
    long left = sessionTimeoutNanos - sinceContact;
    if (left <= 0) {
      markInDoubt("no confirmed contact with ZooKeeper for " + Durations.format(
          Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(sinceContact)))
          + ", at least the session timeout; the session may have expired");
      return 0;
    }
    return state == State.HELD ? left : 0;
  }

  void markInDoubt(String reason) {
    transition(State.IN_DOUBT, reason);
  }

  void markLost(String reason) {
    transition(State.LOST, reason);
  }

  private synchronized void transition(State next, String reason) {
    if (state.ordinal() >= next.ordinal()) {
      return;
    }
    if (state == State.HELD || next == State.LOST) {
      problem = problem == null ? reason : problem + "; then " + reason;
    }
    LOG.debug("Lease on {} ({}) is now {}: {}", key, nodePath, next, reason);
    state = next;
    ScheduledFuture<?> beat = heartbeat;
    if (beat != null) {
      beat.cancel(false);
    }
  }

  private void sendHeartbeat() {
    if (state != State.HELD) {
      return;
    }
    long sent = System.nanoTime();
    try {
      client.curator().checkExists().inBackground((c, event) -> onHeartbeat(sent, event))
          .forPath(nodePath);
    } catch (Exception e) {
      LOG.debug("Heartbeat of {} not sent: {}", nodePath, e.toString());
    }
  }

  private void onHeartbeat(long sent, CuratorEvent event) {
    KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
    if (code == KeeperException.Code.OK || code == KeeperException.Code.NONODE) {
      onOwnership(sent, code == KeeperException.Code.OK ? event.getStat() : null);
    } else {
      LOG.debug("Heartbeat of {} failed: {}", nodePath, code);
    }
  }

  /** Ownership was confirmed (or refuted) by a request sent at {@code sent}. */
  private void onOwnership(long sent, Stat stat) {
    if (stat == null) {
      markLost("its lock node " + nodePath + " no longer exists");
    } else if (stat.getEphemeralOwner() != sessionId) {
      markLost("its lock node " + nodePath + " belongs to another session");
    } else {
      lastContactNanos.accumulateAndGet(sent, Math::max);
    }
  }

  /**
   * Deletes this lease's own lock node (a path no other holder can have: it carries a random id of
   * this acquisition), unless it is already gone. Idempotent. A lost lease's node is deleted in the
   * background (it is gone or dies with its session); an in-doubt lease on a disconnected client
   * hands the delete to the background at once instead of blocking for Curator's retries.
   *
   * @throws IOException when the delete could not be confirmed; Curator keeps deleting in the
   *     background, and the server removes the node when the session ends
   */
  @Override
  public void close() throws IOException {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    State before;
    synchronized (this) {
      before = state;
      state = State.RELEASED;
      ScheduledFuture<?> beat = heartbeat;
      if (beat != null) {
        beat.cancel(false);
      }
    }
    if (problem == null) {
      problem = "it was released by close()";
    }
    try {
      if (before == State.LOST) {
        // The node is gone or dies with its old session; delete it early without blocking.
        client.curator().delete().guaranteed().inBackground().forPath(nodePath);
      } else if (!client.isConnected()) {
        // In doubt and disconnected: do not stall the caller for Curator's retries.
        client.curator().delete().guaranteed().inBackground().forPath(nodePath);
        throw new IOException("Could not release the ZooKeeper lock '" + key + "' now: the client"
            + " is disconnected from '" + client.connectString() + "'. Curator deletes " + nodePath
            + " in the background once it reconnects; the server frees it at the latest when the"
            + " session expires.");
      } else {
        client.curator().delete().guaranteed().forPath(nodePath);
      }
    } catch (IOException e) {
      throw e;
    } catch (KeeperException.NoNodeException e) {
      // Already gone: the session ended, nothing of ours is left.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while releasing the ZooKeeper lock '" + key + "'; Curator"
          + " deletes " + nodePath + " in the background.", e);
    } catch (Exception e) {
      throw new IOException("Could not confirm the release of the ZooKeeper lock '" + key + "' at '"
          + client.connectString() + "': " + e + ". Curator keeps deleting " + nodePath + " in the"
          + " background; the server frees it at the latest when the session expires.", e);
    } finally {
      onClose.accept(this);
    }
  }

  private static String describe(State state) {
    return switch (state) {
      case HELD -> "held";
      case IN_DOUBT -> "in doubt";
      case LOST -> "lost";
      case RELEASED -> "released";
    };
  }

  @Override
  public String toString() {
    return "ZooKeeperLease{" + key + ", " + nodePath + ", token " + fencingToken + ", "
        + describe(state) + "}";
  }
}
