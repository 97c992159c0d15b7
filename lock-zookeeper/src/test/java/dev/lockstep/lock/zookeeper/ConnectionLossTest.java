package dev.lockstep.lock.zookeeper;

import static dev.lockstep.lock.zookeeper.ZooKeeperTesting.scaled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * ZooKeeper unreachable: at acquire time a clear, bounded error; while holding, the lease fences.
 */
class ConnectionLossTest {

  private static final Duration CONNECTION_TIMEOUT = scaled(Duration.ofSeconds(1));
  private static final Duration SLACK = scaled(Duration.ofSeconds(2));

  private static Map<String, String> options(String connectString) {
    Map<String, String> options = new HashMap<>(ZooKeeperTesting.options(connectString));
    options.put(ZooKeeperLockOptions.CONNECTION_TIMEOUT, CONNECTION_TIMEOUT.toMillis() + " ms");
    return options;
  }

  @Test
  void unreachableAtAcquireTimeFailsAfterTheConnectionTimeoutNamingTheConnectString()
      throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String connectString = "127.0.0.1:" + closedPort;
    try (LockService lock = LockServiceDiscovery.open(options(connectString))) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> lock.acquire("db.unreachable", scaled(Duration.ofMinutes(5))))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("'" + connectString + "'")
          .hasMessageContaining(ZooKeeperLockOptions.CONNECTION_TIMEOUT)
          .hasMessageContaining(ZooKeeperLockOptions.CONNECT_STRING);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(took)
          .isGreaterThanOrEqualTo(CONNECTION_TIMEOUT.multipliedBy(9).dividedBy(10))
          .isLessThan(CONNECTION_TIMEOUT.plus(SLACK));
    }
  }

  @Test
  void aServerThatGoesAwayFencesTheHolderAtOnceAndForGood() throws Exception {
    try (TestingServer server = ZooKeeperTesting.startServer();
        ZooKeeperLockService service =
            ZooKeeperTesting.ownProcessService(options(server.getConnectString()))) {
      Lease lease = service.acquire("db.vanishing", Duration.ofSeconds(5)).orElseThrow();
      lease.ensureHeld();

      server.stop();
      long deadline = System.nanoTime() + SLACK.toNanos();
      while (lease.isHeld() && System.nanoTime() - deadline < 0) {
        Thread.sleep(5);
      }
      assertThat(lease.isHeld()).as("held after the server went away").isFalse();
      assertThat(lease.timeLeft()).isZero();
      assertThatThrownBy(lease::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("in doubt");

      long start = System.nanoTime();
      assertThatThrownBy(() -> service.acquire("db.other", scaled(Duration.ofMinutes(5))))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(server.getConnectString());
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(CONNECTION_TIMEOUT.plus(SLACK));

      // The server comes back (the session may or may not have outlived the outage): the lease
      // stays fenced all the same, and close() leaves no node of it behind.
      server.restart();
      service
          .curator()
          .blockUntilConnected((int) SLACK.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      assertThatThrownBy(lease::ensureHeld).isInstanceOf(LockLostException.class);
      lease.close();
      assertThat(service.curator().checkExists().forPath(((ZooKeeperLease) lease).nodePath()))
          .isNull();
      try (Lease again = service.acquire("db.vanishing", Duration.ofSeconds(5)).orElseThrow()) {
        assertThat(again.fencingToken()).isGreaterThan(lease.fencingToken());
      }
    }
  }

  @Test
  void aLeaseWhoseSessionExpiredIsLostNotOnlyInDoubt() throws Exception {
    try (TestingServer server = ZooKeeperTesting.startServer();
        ZooKeeperLockService service =
            ZooKeeperTesting.ownProcessService(options(server.getConnectString()))) {
      Lease lease = service.acquire("db.expired", Duration.ofSeconds(5)).orElseThrow();
      ZooKeeperTesting.expireSession(server.getConnectString(), service.curator());
      assertThat(lease.isHeld()).isFalse();
      // Curator reports LOST once the client learns of the expiry; the lease then says "lost".
      long deadline = System.nanoTime() + ZooKeeperTesting.SESSION_TIMEOUT.plus(SLACK).toNanos();
      String message = "";
      while (!message.contains(" is lost") && System.nanoTime() - deadline < 0) {
        try {
          lease.ensureHeld();
        } catch (LockLostException e) {
          message = e.getMessage();
        }
        Thread.sleep(20);
      }
      assertThat(message).contains(" is lost").contains("expired");
      lease.close();
      try (Lease next = service.acquire("db.expired", Duration.ofSeconds(5)).orElseThrow()) {
        assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      }
    }
  }

  @Test
  void aLeaseWhoseNodeAnOperatorDeletedIsLost() throws Exception {
    try (TestingServer server = ZooKeeperTesting.startServer();
        ZooKeeperLockService service =
            ZooKeeperTesting.ownProcessService(options(server.getConnectString()));
        ZooKeeperLockService operator =
            ZooKeeperTesting.ownProcessService(options(server.getConnectString()))) {
      Lease lease = service.acquire("db.removed", Duration.ofSeconds(5)).orElseThrow();
      operator.curator().delete().forPath(((ZooKeeperLease) lease).nodePath());
      long deadline = System.nanoTime() + SLACK.toNanos();
      while (lease.isHeld() && System.nanoTime() - deadline < 0) {
        Thread.sleep(5);
      }
      assertThatThrownBy(lease::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining(" is lost")
          .hasMessageContaining("deleted");
      lease.close();
    }
  }
}
