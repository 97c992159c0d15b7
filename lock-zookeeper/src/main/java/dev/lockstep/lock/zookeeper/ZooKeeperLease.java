package dev.lockstep.lock.zookeeper;

import dev.lockstep.lock.AbstractLease;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Consumer;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A held ZooKeeper lock: the ephemeral sequential znode at {@link #nodePath()} that sorts first
 * among the key's lock nodes, owned by one session. The states are {@link AbstractLease}'s; here:
 *
 * <ol>
 *   <li>held: the client is connected, the node exists with our session as owner as of the last
 *       heartbeat, and less than the session timeout has passed since that heartbeat was sent;
 *   <li>in doubt: the connection was suspended or the client sees itself disconnected, or no
 *       contact for a whole session timeout. The session may already be expired on the server; the
 *       node may still exist, and {@link #close()} deletes it if so;
 *   <li>lost: the session expired, was replaced, or the node was deleted: others may hold the key.
 * </ol>
 *
 * <p>The primitives: the heartbeat is an asynchronous {@code exists} on the node (plus a deletion
 * watch); the release deletes the node. The fencing token is the node's creation zxid ({@code
 * czxid}); see the module README for why it strictly increases per key across holders.
 */
final class ZooKeeperLease extends AbstractLease {

  private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLease.class);

  private final String nodePath;
  private final long sessionId;
  private final Duration sessionTimeout;
  private final SharedCuratorClient client;
  private final Consumer<ZooKeeperLease> onClose;

  /**
   * @param contactNanos {@link System#nanoTime()} before the request that confirmed ownership was
   *     sent
   */
  ZooKeeperLease(
      String key,
      String nodePath,
      Stat stat,
      long contactNanos,
      Duration sessionTimeout,
      SharedCuratorClient client,
      Consumer<ZooKeeperLease> onClose) {
    super(key, stat.getCzxid(), sessionTimeout, contactNanos + sessionTimeout.toNanos());
    this.nodePath = nodePath;
    this.sessionId = stat.getEphemeralOwner();
    this.sessionTimeout = sessionTimeout;
    this.client = client;
    this.onClose = onClose;
  }

  /**
   * Starts watching the node and heartbeating it every fifth of the session timeout. Called once,
   * after the lease is registered for connection-state changes.
   */
  void start() throws Exception {
    Watcher deleted =
        event -> {
          if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            markLost(
                "its lock node "
                    + nodePath
                    + " was deleted (session expired or an operator"
                    + " removed it)",
                null);
          }
        };
    long sent = System.nanoTime();
    Stat stat = client.curator().checkExists().usingWatcher(deleted).forPath(nodePath);
    onOwnership(sent, stat);
    startHeartbeat(client.heartbeats(), sessionTimeout.dividedBy(5));
  }

  /** The lock node, for diagnostics. */
  String nodePath() {
    return nodePath;
  }

  /** The connection was suspended: the session may expire on the server at any moment. */
  void suspended(String reason) {
    markInDoubt(reason, null);
  }

  /** The session ended or the client closed: others may hold the key now. */
  void sessionLost(String reason) {
    markLost(reason, null);
  }

  @Override
  protected String localDoubt() {
    return client.isConnected()
        ? null
        : "the client is disconnected from ZooKeeper at '" + client.connectString() + "'";
  }

  @Override
  protected String expiredReason(Duration sinceContact) {
    return "no confirmed contact with ZooKeeper for "
        + Durations.format(Duration.ofMillis(sinceContact.toMillis()))
        + ", at least the session timeout; the session may have expired";
  }

  @Override
  protected String describe() {
    return "The ZooKeeper lock '"
        + key()
        + "' (node "
        + nodePath
        + ", token "
        + fencingToken()
        + ")";
  }

  @Override
  protected void heartbeat() {
    long sent = System.nanoTime();
    try {
      client
          .curator()
          .checkExists()
          .inBackground((c, event) -> onHeartbeat(sent, event))
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
      markLost("its lock node " + nodePath + " no longer exists", null);
    } else if (stat.getEphemeralOwner() != sessionId) {
      markLost("its lock node " + nodePath + " belongs to another session", null);
    } else {
      confirmed(sent);
    }
  }

  /**
   * Deletes this lease's own lock node (a path no other holder can have: it carries a random id of
   * this acquisition), unless it is already gone. A lost lease's node is deleted in the background
   * (it is gone or dies with its session); an in-doubt lease on a disconnected client hands the
   * delete to the background at once instead of blocking for Curator's retries.
   *
   * @throws IOException when the delete could not be confirmed; Curator keeps deleting in the
   *     background, and the server removes the node when the session ends
   */
  @Override
  protected void release(State before) throws IOException {
    try {
      if (before == State.LOST) {
        // The node is gone or dies with its old session; delete it early without blocking.
        client.curator().delete().guaranteed().inBackground().forPath(nodePath);
      } else if (!client.isConnected()) {
        // In doubt and disconnected: do not stall the caller for Curator's retries.
        client.curator().delete().guaranteed().inBackground().forPath(nodePath);
        throw new IOException(
            "Could not release the ZooKeeper lock '"
                + key()
                + "' now: the"
                + " client is disconnected from '"
                + client.connectString()
                + "'. Curator deletes "
                + nodePath
                + " in the background once it reconnects; the server frees it at the latest"
                + " when the session expires.");
      } else {
        client.curator().delete().guaranteed().forPath(nodePath);
      }
    } catch (IOException e) {
      throw e;
    } catch (KeeperException.NoNodeException e) {
      // Already gone: the session ended, nothing of ours is left.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(
          "Interrupted while releasing the ZooKeeper lock '"
              + key()
              + "';"
              + " Curator deletes "
              + nodePath
              + " in the background.",
          e);
    } catch (Exception e) {
      throw new IOException(
          "Could not confirm the release of the ZooKeeper lock '"
              + key()
              + "' at '"
              + client.connectString()
              + "': "
              + e
              + ". Curator keeps deleting "
              + nodePath
              + " in the background; the server frees it at the latest when the session expires.",
          e);
    } finally {
      onClose.accept(this);
    }
  }
}
