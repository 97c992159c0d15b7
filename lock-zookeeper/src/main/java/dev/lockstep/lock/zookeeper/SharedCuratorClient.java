package dev.lockstep.lock.zookeeper;

import dev.lockstep.options.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One started Curator client (one ZooKeeper session at a time), the leases held through it, and the
 * thread that heartbeats them. Owned by {@link CuratorClients}, which counts its users.
 *
 * <p>Connection states reach every live lease: {@code SUSPENDED} puts it in doubt, {@code LOST}
 * (the session expired, or Curator gave up on it after the session timeout) makes it lost. Both are
 * final for that lease; a lease never becomes held again after a reconnect.
 */
final class SharedCuratorClient {

  private static final Logger LOG = LoggerFactory.getLogger(SharedCuratorClient.class);
  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  private final CuratorFramework client;
  private final String connectString;
  private final Duration configuredSessionTimeout;
  private final ScheduledExecutorService heartbeats;
  private final Set<ZooKeeperLease> leases = ConcurrentHashMap.newKeySet();

  /** Guarded by the owning {@link CuratorClients}. */
  int users;

  private SharedCuratorClient(
      CuratorFramework client,
      String connectString,
      Duration configuredSessionTimeout,
      ScheduledExecutorService heartbeats) {
    this.client = client;
    this.connectString = connectString;
    this.configuredSessionTimeout = configuredSessionTimeout;
    this.heartbeats = heartbeats;
  }

  static SharedCuratorClient start(ZooKeeperLockOptions options) {
    int id = SEQUENCE.incrementAndGet();
    ThreadFactory threads = daemonThreads("lockstep-zk-" + id);
    CuratorFrameworkFactory.Builder builder =
        CuratorFrameworkFactory.builder()
            .connectString(options.connectString())
            .sessionTimeoutMs(toIntMillis(options.sessionTimeout()))
            .connectionTimeoutMs(toIntMillis(options.connectionTimeout()))
            .retryPolicy(
                new ExponentialBackoffRetry(
                    toIntMillis(options.retryBaseSleep()),
                    options.retryMaxAttempts(),
                    toIntMillis(options.retryMaxSleep())))
            // The connect string is the identity of this client; do not let a reconfig rewrite it.
            .ensembleTracker(false)
            .threadFactory(threads);
    if (options.authUser() != null) {
      builder.authorization("digest", options.authBytes());
    }
    CuratorFramework client = builder.build();
    ScheduledThreadPoolExecutor heartbeats =
        new ScheduledThreadPoolExecutor(1, daemonThreads("lockstep-zk-heartbeat-" + id));
    heartbeats.setRemoveOnCancelPolicy(true);
    SharedCuratorClient shared =
        new SharedCuratorClient(
            client, options.connectString(), options.sessionTimeout(), heartbeats);
    client.getConnectionStateListenable().addListener((c, state) -> shared.stateChanged(state));
    client.start();
    return shared;
  }

  CuratorFramework curator() {
    return client;
  }

  String connectString() {
    return connectString;
  }

  ScheduledExecutorService heartbeats() {
    return heartbeats;
  }

  /**
   * Waits until the client is connected.
   *
   * @throws IOException naming the connect string and the option when it did not connect in time
   */
  void awaitConnected(Duration timeout) throws IOException, InterruptedException {
    if (client.getZookeeperClient().isConnected()) {
      return;
    }
    if (!client.blockUntilConnected(toIntMillis(timeout), TimeUnit.MILLISECONDS)) {
      throw new IOException(
          "Cannot reach ZooKeeper at '"
              + connectString
              + "' within "
              + Durations.format(timeout)
              + " (option '"
              + ZooKeeperLockOptions.CONNECTION_TIMEOUT
              + "'). Check that the servers in '"
              + ZooKeeperLockOptions.CONNECT_STRING
              + "' are running and reachable from this host.");
    }
  }

  /** Whether the client is connected right now, as far as it knows; never blocks. */
  boolean isConnected() {
    return client.getZookeeperClient().isConnected();
  }

  /** The id of the current session. */
  long sessionId() throws Exception {
    return client.getZookeeperClient().getZooKeeper().getSessionId();
  }

  /** The session timeout the server granted, or the configured one while not connected. */
  Duration sessionTimeout() {
    try {
      if (isConnected()) {
        int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        if (negotiated > 0) {
          return Duration.ofMillis(negotiated);
        }
      }
    } catch (Exception e) {
      LOG.debug(
          "Could not read the negotiated session timeout of {}: {}", connectString, e.toString());
    }
    return configuredSessionTimeout;
  }

  /** The larger of the configured and the negotiated session timeout. */
  Duration sessionTimeoutBound() {
    Duration current = sessionTimeout();
    return current.compareTo(configuredSessionTimeout) > 0 ? current : configuredSessionTimeout;
  }

  void register(ZooKeeperLease lease) {
    leases.add(lease);
  }

  void unregister(ZooKeeperLease lease) {
    leases.remove(lease);
  }

  /** How many leases receive this client's connection-state changes now (tests, diagnostics). */
  int registeredLeases() {
    return leases.size();
  }

  private void stateChanged(ConnectionState state) {
    LOG.debug("ZooKeeper connection to {} is {}", connectString, state);
    switch (state) {
      case SUSPENDED -> {
        for (ZooKeeperLease lease : leases) {
          lease.suspended(
              "the connection to ZooKeeper at '"
                  + connectString
                  + "' was suspended;"
                  + " the session may expire and another writer may take the lock");
        }
      }
      case LOST -> {
        for (ZooKeeperLease lease : leases) {
          lease.sessionLost("the ZooKeeper session at '" + connectString + "' was lost (expired)");
        }
      }
      default -> {
        // CONNECTED, RECONNECTED, READ_ONLY: leases already in doubt or lost stay so.
      }
    }
  }

  /** Stops heartbeats and closes the client; the server deletes the session's lock nodes. */
  void close() {
    heartbeats.shutdownNow();
    for (ZooKeeperLease lease : leases) {
      lease.sessionLost("the ZooKeeper client of '" + connectString + "' was closed");
    }
    client.close();
  }

  private static int toIntMillis(Duration duration) {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(1, duration.toMillis()));
  }

  private static ThreadFactory daemonThreads(String name) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
