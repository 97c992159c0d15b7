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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.state.ConnectionState;
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

  @Test
  void aConnectionDropThatNobodyLookedAtStillLeavesTheLeaseInDoubtAfterTheReconnect()
      throws Exception {
    // A 2 s tick lets the server grant a 30 s session: heartbeats (every 6 s) and the deadline
    // stay out of the way, so only the SUSPENDED event can put the lease in doubt.
    Map<String, String> options;
    try (TestingServer server = ZooKeeperTesting.startServer(2000)) {
      options = ZooKeeperTesting.options(server.getConnectString());
      options.put(ZooKeeperLockOptions.SESSION_TIMEOUT, "30 s");
      try (ZooKeeperLockService service = ZooKeeperTesting.ownProcessService(options)) {
        Lease lease = service.acquire("db.blip", Duration.ofSeconds(5)).orElseThrow();
        String node = ((ZooKeeperLease) lease).nodePath();
        long owner = service.curator().checkExists().forPath(node).getEphemeralOwner();
        BlockingQueue<ConnectionState> states = new LinkedBlockingQueue<>();
        service.curator().getConnectionStateListenable().addListener((c, s) -> states.add(s));

        // The client's socket drops and the client reconnects to the same session; nobody asks
        // the lease anything in between.
        service.curator().getZookeeperClient().getZooKeeper().getTestable().closeSocket();
        ConnectionState state;
        do {
          state = states.poll(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
          assertThat(state).as("the client reconnects").isNotNull();
        } while (state != ConnectionState.RECONNECTED);
        // Every listener saw SUSPENDED before any saw RECONNECTED: the lease has heard of it.
        assertThat(service.curator().getZookeeperClient().isConnected()).isTrue();
        assertThat(service.curator().checkExists().forPath(node).getEphemeralOwner())
            .as("the session survived")
            .isEqualTo(owner);

        assertThat(lease.isHeld()).as("held after a suspension").isFalse();
        assertThat(lease.timeLeft()).isZero();
        assertThatThrownBy(lease::ensureHeld)
            .isInstanceOf(LockLostException.class)
            .hasMessageContaining(" is in doubt")
            .hasMessageContaining("was suspended");
        lease.close();
        assertThat(service.curator().checkExists().forPath(node)).isNull();
      }
    }
  }

  @Test
  void closingWhileDisconnectedFailsAtOnceForALeaseInDoubtButNotForALostOne() throws Exception {
    try (TestingServer server = ZooKeeperTesting.startServer();
        ZooKeeperLockService service =
            ZooKeeperTesting.ownProcessService(
                ZooKeeperTesting.options(server.getConnectString()));
        ZooKeeperLockService operator =
            ZooKeeperTesting.ownProcessService(
                ZooKeeperTesting.options(server.getConnectString()))) {
      Lease inDoubt = service.acquire("db.doubtful", Duration.ofSeconds(5)).orElseThrow();
      Lease lost = service.acquire("db.gone", Duration.ofSeconds(5)).orElseThrow();
      String node = ((ZooKeeperLease) inDoubt).nodePath();
      operator.curator().delete().forPath(((ZooKeeperLease) lost).nodePath());
      long deadline = System.nanoTime() + SLACK.toNanos();
      while (lost.isHeld() && System.nanoTime() - deadline < 0) {
        Thread.sleep(5);
      }
      assertThatThrownBy(lost::ensureHeld).hasMessageContaining(" is lost");

      server.stop();
      deadline = System.nanoTime() + SLACK.toNanos();
      while (inDoubt.isHeld() && System.nanoTime() - deadline < 0) {
        Thread.sleep(5);
      }
      assertThatThrownBy(inDoubt::ensureHeld).hasMessageContaining(" is in doubt");

      // Nothing of the lost lease is left to confirm: no error.
      lost.close();
      // The node of the lease in doubt may still be there: close() says it could not release it,
      // without waiting for Curator's retries, and leaves the delete to the background.
      assertThatThrownBy(inDoubt::close)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("Could not release the ZooKeeper lock 'db.doubtful' now")
          .hasMessageContaining("disconnected from '" + server.getConnectString() + "'")
          .hasMessageContaining(node + " in the background");

      server.restart();
      deadline =
          System.nanoTime()
              + ZooKeeperTesting.SESSION_TIMEOUT.plus(SLACK).multipliedBy(2).toNanos();
      while (operator.curator().checkExists().forPath(node) != null
          && System.nanoTime() - deadline < 0) {
        Thread.sleep(20);
      }
      assertThat(operator.curator().checkExists().forPath(node))
          .as("deleted in the background, or with its session")
          .isNull();
    }
  }

  @Test
  void closingOnAnInterruptedThreadSaysSoKeepsTheInterruptAndStillDeletesTheNode()
      throws Exception {
    try (TestingServer server = ZooKeeperTesting.startServer();
        ZooKeeperLockService service =
            ZooKeeperTesting.ownProcessService(
                ZooKeeperTesting.options(server.getConnectString()))) {
      Lease lease = service.acquire("db.interrupted", Duration.ofSeconds(5)).orElseThrow();
      String node = ((ZooKeeperLease) lease).nodePath();
      boolean interrupted;
      Thread.currentThread().interrupt();
      try {
        assertThatThrownBy(lease::close)
            .isInstanceOf(IOException.class)
            .hasMessageContaining("Interrupted while releasing the ZooKeeper lock 'db.interrupted'")
            .hasMessageContaining(node + " in the background");
      } finally {
        interrupted = Thread.interrupted();
      }
      assertThat(interrupted).as("the interrupt is kept for the caller").isTrue();
      assertThat(service.openLeases()).isZero();

      long deadline = System.nanoTime() + SLACK.toNanos();
      while (service.curator().checkExists().forPath(node) != null
          && System.nanoTime() - deadline < 0) {
        Thread.sleep(20);
      }
      assertThat(service.curator().checkExists().forPath(node)).isNull();
      try (Lease next = service.acquire("db.interrupted", Duration.ZERO).orElseThrow()) {
        assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      }
    }
  }
}
