package dev.lockstep.lock.zookeeper;

import dev.lockstep.lock.LockOptions;
import dev.lockstep.testing.TestTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Real ZooKeeper servers for tests. Every wait scales with the team's one timing factor ({@link
 * TestTiming}): set {@code -Dlockstep.test.timing=3} on a slow machine.
 */
final class ZooKeeperTesting {

  /** A short tick, so that the server accepts short session timeouts (2 to 20 ticks). */
  static final int TICK_MS = 200;

  static final Duration SESSION_TIMEOUT = scaled(Duration.ofSeconds(3));

  private ZooKeeperTesting() {}

  static Duration scaled(Duration duration) {
    return TestTiming.scaled(duration);
  }

  static TestingServer startServer() throws Exception {
    return new TestingServer(spec(), true);
  }

  /**
   * A server with a longer tick, for tests that need session timeouts (and so heartbeat periods)
   * longer than {@link #TICK_MS} allows: the server grants 2 to 20 ticks.
   */
  static TestingServer startServer(int tickMs) throws Exception {
    return new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, tickMs, -1), true);
  }

  static TestingCluster startCluster(int size) throws Exception {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      specs.add(spec());
    }
    TestingCluster cluster = new TestingCluster(specs);
    cluster.start();
    return cluster;
  }

  private static InstanceSpec spec() {
    return new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1);
  }

  /** Catalog options of a {@code zookeeper} lock on {@code connectString}, with test timeouts. */
  static Map<String, String> options(String connectString) {
    Map<String, String> options = new HashMap<>();
    options.put(LockOptions.LOCK_TYPE, ZooKeeperLockFactory.IDENTIFIER);
    options.put(ZooKeeperLockOptions.CONNECT_STRING, connectString);
    options.put(ZooKeeperLockOptions.SESSION_TIMEOUT, SESSION_TIMEOUT.toMillis() + " ms");
    options.put(
        ZooKeeperLockOptions.CONNECTION_TIMEOUT, scaled(Duration.ofSeconds(2)).toMillis() + " ms");
    options.put(ZooKeeperLockOptions.RETRY_BASE_SLEEP, "50 ms");
    options.put(ZooKeeperLockOptions.RETRY_MAX_SLEEP, "500 ms");
    options.put(
        LockOptions.LOCK_ACQUIRE_TIMEOUT, scaled(Duration.ofSeconds(30)).toMillis() + " ms");
    options.put(LockOptions.LOCK_CHECK_MAX_SLEEP, "500 ms");
    return options;
  }

  /** A service with its own Curator client, as if it ran in a process of its own. */
  static ZooKeeperLockService ownProcessService(Map<String, String> options) {
    return new ZooKeeperLockService(ZooKeeperLockOptions.from(options), new CuratorClients());
  }

  /**
   * Expires {@code client}'s session on the server: a second handle joins the session with its id
   * and password (the server drops the holder's connection), then closes it (the server ends the
   * session and deletes its ephemeral nodes). Repeated until a joining handle is told the session
   * expired, so that a holder reconnecting in between cannot save the session.
   */
  static void expireSession(String connectString, CuratorFramework client) throws Exception {
    ZooKeeper holder = client.getZookeeperClient().getZooKeeper();
    long sessionId = holder.getSessionId();
    byte[] password = holder.getSessionPasswd();
    for (int attempt = 0; attempt < 10; attempt++) {
      BlockingQueue<Watcher.Event.KeeperState> states = new LinkedBlockingQueue<>();
      Watcher watcher =
          event -> {
            if (event.getType() == Watcher.Event.EventType.None) {
              states.add(event.getState());
            }
          };
      ZooKeeper intruder =
          new ZooKeeper(
              connectString, (int) SESSION_TIMEOUT.toMillis(), watcher, sessionId, password);
      try {
        Watcher.Event.KeeperState state =
            states.poll(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
        if (state == Watcher.Event.KeeperState.Expired) {
          return;
        }
        if (state != Watcher.Event.KeeperState.SyncConnected) {
          throw new AssertionError(
              "A second handle could not join session 0x"
                  + Long.toHexString(sessionId)
                  + ": "
                  + state);
        }
      } finally {
        intruder.close();
      }
    }
    throw new AssertionError("Session 0x" + Long.toHexString(sessionId) + " survived 10 closes");
  }
}
