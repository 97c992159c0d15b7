package dev.lockstep.lock.zookeeper;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.OpenLeases;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.LockInternals;
import org.apache.curator.framework.recipes.locks.PredicateResults;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code zookeeper} lock service: Curator's fair lock queue (the recipe behind {@code
 * InterProcessMutex}), one queue per key at {@code <base-path>/<key>}, with leases that are handles
 * instead of thread-bound, and that fence themselves when the session is in doubt.
 *
 * <p>Acquire:
 *
 * <ol>
 *   <li>Wait up to {@code connection-timeout} for a connection; none: an {@link IOException} naming
 *       the connect string.
 *   <li>Create an ephemeral sequential node {@code _c_<random id>-lock-<seq>} under the key
 *       (Curator's protected mode, so a create retried after a connection loss never leaves an
 *       orphan).
 *   <li>List the key's nodes by sequence. Ours first: we hold the lock. Otherwise watch the node
 *       just before ours and wait for its deletion, at most {@code lock-check-max-sleep} per round,
 *       then list again. Our node gone (the session expired while waiting): create a new one.
 *   <li>Holding: read our node's {@code Stat}; it must be owned by the current session. Its
 *       creation zxid is the fencing token. The lease is registered for connection-state changes,
 *       then heartbeats start.
 *   <li>Timeout, interruption or error: delete our node (guaranteed, retried in the background).
 * </ol>
 *
 * <p>A non-owner can never release another holder's lock: a lease deletes only its own node, whose
 * name carries a random id of that acquisition.
 */
public final class ZooKeeperLockService implements LockService {

  private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLockService.class);
  static final String LOCK_NAME = "lock-";

  private final ZooKeeperLockOptions options;
  private final CuratorClients registry;
  private final SharedCuratorClient shared;
  private final StandardLockInternalsDriver driver = new StandardLockInternalsDriver();
  private final OpenLeases<ZooKeeperLease> leases = new OpenLeases<>();
  private final byte[] holderDescription;

  /** A service on this process's shared Curator client for these options. */
  public ZooKeeperLockService(ZooKeeperLockOptions options) {
    this(options, CuratorClients.PROCESS);
  }

  ZooKeeperLockService(ZooKeeperLockOptions options, CuratorClients registry) {
    this.options = options;
    this.registry = registry;
    this.shared = registry.retain(options);
    this.holderDescription =
        ManagementFactory.getRuntimeMXBean().getName().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout)
      throws IOException, InterruptedException {
    leases.checkOpen("This ZooKeeper lock service is closed.");
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("A lock key must not be empty.");
    }
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    shared.awaitConnected(options.connectionTimeout());
    String lockPath = ZKPaths.makePath(options.basePath(), encodeKey(key));
    CuratorFramework curator = shared.curator();
    Semaphore signal = new Semaphore(0);
    Watcher wakeUp = event -> signal.release();
    String ourPath = null;
    boolean held = false;
    try {
      while (true) {
        if (ourPath == null) {
          ourPath = create(curator, lockPath);
        }
        String ourName = ZKPaths.getNodeFromPath(ourPath);
        List<String> children;
        try {
          children = LockInternals.getSortedChildren(curator, lockPath, LOCK_NAME, driver);
        } catch (KeeperException.NoNodeException e) {
          children = List.of();
        }
        if (!children.contains(ourName)) {
          LOG.debug(
              "Lock node {} vanished while waiting (session expired?); queueing again", ourPath);
          ourPath = null;
          continue;
        }
        PredicateResults position = driver.getsTheLock(curator, children, ourName, 1);
        if (position.getsTheLock()) {
          ZooKeeperLease lease = holdOrNull(key, ourPath);
          if (lease == null) {
            ourPath = null;
            continue;
          }
          held = true;
          return Optional.of(lease);
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return Optional.empty();
        }
        signal.drainPermits();
        String predecessor = ZKPaths.makePath(lockPath, position.getPathToWatch());
        if (curator.checkExists().usingWatcher(wakeUp).forPath(predecessor) != null) {
          signal.tryAcquire(
              Math.min(remaining, options.lock().checkMaxSleep().toNanos()), TimeUnit.NANOSECONDS);
        }
      }
    } catch (InterruptedException | IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw translate(key, e);
    } finally {
      if (!held && ourPath != null) {
        deleteQuietly(curator, ourPath);
      }
    }
  }

  private String create(CuratorFramework curator, String lockPath) throws Exception {
    KeeperException.NoNodeException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return curator
            .create()
            .creatingParentContainersIfNeeded()
            .withProtection()
            .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
            .withACL(options.acl(), true)
            .forPath(ZKPaths.makePath(lockPath, LOCK_NAME), holderDescription);
      } catch (KeeperException.NoNodeException e) {
        // The server removed the empty key container between creating it and our node: again.
        last = e;
      }
    }
    throw last;
  }

  /**
   * Our node sorts first: check it belongs to the current session and build the lease, or return
   * null when the node vanished with an expired session (the caller queues again).
   */
  private ZooKeeperLease holdOrNull(String key, String ourPath) throws Exception {
    long sent = System.nanoTime();
    long sessionId = shared.sessionId();
    Stat stat = shared.curator().checkExists().forPath(ourPath);
    if (stat == null || stat.getEphemeralOwner() != sessionId) {
      LOG.debug("Lock node {} is not owned by the current session; queueing again", ourPath);
      return null;
    }
    ZooKeeperLease lease =
        new ZooKeeperLease(key, ourPath, stat, sent, shared.sessionTimeout(), shared, this::forget);
    leases.add(lease);
    shared.register(lease);
    try {
      lease.start();
    } catch (Exception e) {
      closeQuietly(lease, e);
      throw e;
    }
    // A suspension that happened before registration is seen here: the lease is then in doubt.
    lease.isHeld();
    return lease;
  }

  private void forget(ZooKeeperLease lease) {
    leases.remove(lease);
    shared.unregister(lease);
  }

  private void deleteQuietly(CuratorFramework curator, String path) {
    boolean interrupted = Thread.interrupted();
    try {
      curator.delete().guaranteed().forPath(path);
    } catch (KeeperException.NoNodeException e) {
      // Already gone.
    } catch (Exception e) {
      LOG.debug(
          "Could not delete abandoned lock node {} yet; Curator retries in the background: {}",
          path,
          e.toString());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private IOException translate(String key, Exception e) {
    if (e instanceof KeeperException.NoAuthException) {
      return new IOException(
          "ZooKeeper at '"
              + shared.connectString()
              + "' refused access to the"
              + " lock of '"
              + key
              + "' under '"
              + options.basePath()
              + "' (NoAuth). Check '"
              + ZooKeeperLockOptions.AUTH_USER
              + "', '"
              + ZooKeeperLockOptions.AUTH_PASSWORD
              + "' and '"
              + ZooKeeperLockOptions.ACL
              + "': every writer of a table must use an identity the ACL"
              + " allows.",
          e);
    }
    if (e instanceof KeeperException.ConnectionLossException
        || e instanceof KeeperException.SessionExpiredException) {
      return new IOException(
          "Lost the connection to ZooKeeper at '"
              + shared.connectString()
              + "' while acquiring the lock of '"
              + key
              + "': "
              + e.getMessage()
              + ". Nothing is held.",
          e);
    }
    return new IOException(
        "ZooKeeper at '"
            + shared.connectString()
            + "' failed while acquiring"
            + " the lock of '"
            + key
            + "': "
            + e
            + ". Nothing is held.",
        e);
  }

  /**
   * The negotiated (or configured, whichever is larger) session timeout plus half of it: the server
   * expires sessions on its tick boundaries, and a tick is at most half the session timeout.
   */
  @Override
  public Duration holderDeathBound() {
    Duration timeout = shared.sessionTimeoutBound();
    return timeout.plus(timeout.dividedBy(2));
  }

  /** The options this service runs with. */
  public ZooKeeperLockOptions options() {
    return options;
  }

  /** The Curator client shared by every service on these settings in this process. */
  CuratorFramework curator() {
    return shared.curator();
  }

  /** The client this service shares with every service on these settings in this process. */
  SharedCuratorClient shared() {
    return shared;
  }

  /** How many leases this service handed out and has not seen closed (tests, diagnostics). */
  int openLeases() {
    return leases.size();
  }

  @Override
  public void close() throws IOException {
    leases.close(() -> registry.release(shared));
  }

  private static void closeQuietly(ZooKeeperLease lease, Exception primary) {
    try {
      lease.close();
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }

  /**
   * The znode name of a key: letters, digits, {@code .}, {@code _} and {@code -} are kept, every
   * other byte of its UTF-8 form becomes {@code %XX}; {@code .} and {@code ..} alone are escaped.
   */
  static String encodeKey(String key) {
    StringBuilder out = new StringBuilder();
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '.'
          || c == '_'
          || c == '-') {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    String encoded = out.toString();
    return encoded.equals(".") || encoded.equals("..") ? encoded.replace(".", "%2E") : encoded;
  }

  @Override
  public String toString() {
    return "ZooKeeperLockService{" + options.connectString() + options.basePath() + "}";
  }
}
