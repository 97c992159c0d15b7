package dev.lockstep.lock.zookeeper;

import static dev.lockstep.lock.zookeeper.ZooKeeperTesting.scaled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lease's primitives against a real server, on a lease built over a node the test controls:
 * what {@code start()} and a heartbeat answer make of a node that is gone or owned by another
 * session (cases the node's deletion watch does not cover: a node deleted before the watch was set,
 * an answer that arrives without a watch event), the words of an expired lease, and that a closed
 * lease is forgotten.
 *
 * <p>The leases here get a validity far longer than the test, so that neither their deadline nor
 * their periodic heartbeat (a fifth of it) can decide the outcome: only the step under test can.
 */
class ZooKeeperLeaseTest {

  private static final Duration VALIDITY = Duration.ofMinutes(10);
  private static final Duration SLACK = scaled(Duration.ofSeconds(5));
  private static final String KEY = "db.lease";
  private static final String NODE = "/lease-test/db.lease/lock-0000000000";

  private TestingServer server;
  private SharedCuratorClient client;
  private CuratorFramework other;

  @BeforeEach
  void connect() throws Exception {
    server = ZooKeeperTesting.startServer();
    client =
        SharedCuratorClient.start(
            ZooKeeperLockOptions.from(ZooKeeperTesting.options(server.getConnectString())));
    client.awaitConnected(SLACK);
    other =
        CuratorFrameworkFactory.newClient(
            server.getConnectString(),
            (int) ZooKeeperTesting.SESSION_TIMEOUT.toMillis(),
            (int) SLACK.toMillis(),
            new RetryOneTime(50));
    other.start();
    assertThat(other.blockUntilConnected((int) SLACK.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
  }

  @AfterEach
  void disconnect() throws Exception {
    other.close();
    client.close();
    server.close();
  }

  /** Our session creates the lock node; its {@code Stat}. */
  private Stat createOwnNode() throws Exception {
    client
        .curator()
        .create()
        .creatingParentsIfNeeded()
        .withMode(CreateMode.EPHEMERAL)
        .forPath(NODE);
    return client.curator().checkExists().forPath(NODE);
  }

  /** A lease over a node our session just created, confirmed now, not started. */
  private ZooKeeperLease leaseOverOwnNode() throws Exception {
    Stat stat = createOwnNode();
    return new ZooKeeperLease(KEY, NODE, stat, System.nanoTime(), VALIDITY, client, l -> {});
  }

  /** Our node deleted, and the same path created again by another session. */
  private void anotherSessionTakesThePath() throws Exception {
    other.delete().forPath(NODE);
    other.create().withMode(CreateMode.EPHEMERAL).forPath(NODE);
    assertThat(other.checkExists().forPath(NODE).getEphemeralOwner())
        .isNotEqualTo(client.sessionId());
  }

  /** {@code ensureHeld()} says the lease is lost, and why. */
  private static void assertLost(Lease lease, String reason) {
    assertThatThrownBy(lease::ensureHeld)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining(" is lost")
        .hasMessageContaining(reason);
  }

  private static void awaitNotHeld(Lease lease) throws InterruptedException {
    long deadline = System.nanoTime() + SLACK.toNanos();
    while (lease.isHeld() && System.nanoTime() - deadline < 0) {
      Thread.sleep(5);
    }
  }

  @Test
  void aLeaseWhoseNodeWasDeletedBeforeItStartedIsLostAtOnce() throws Exception {
    ZooKeeperLease lease = leaseOverOwnNode();
    other.delete().forPath(NODE);

    // The deletion happened before start() set its watch, so no watch event will come; start()
    // itself must find the node gone, not the first heartbeat minutes later.
    lease.start();
    assertThat(lease.isHeld()).isFalse();
    assertLost(lease, NODE + " no longer exists");
    lease.close();
  }

  @Test
  void aLeaseWhoseNodeAnotherSessionOwnsWhenItStartsIsLostAtOnce() throws Exception {
    ZooKeeperLease lease = leaseOverOwnNode();
    anotherSessionTakesThePath();

    lease.start();
    assertThat(lease.isHeld()).isFalse();
    assertLost(lease, NODE + " belongs to another session");
    lease.close();
  }

  @Test
  void aHeartbeatThatFindsTheNodeGoneMarksTheLeaseLost() throws Exception {
    ZooKeeperLease lease = leaseOverOwnNode();
    other.delete().forPath(NODE);
    assertThat(lease.isHeld()).as("no watch and no heartbeat has told it yet").isTrue();

    lease.heartbeat();
    awaitNotHeld(lease);
    assertLost(lease, NODE + " no longer exists");
    lease.close();
  }

  @Test
  void aHeartbeatThatFindsTheNodeOwnedByAnotherSessionMarksTheLeaseLost() throws Exception {
    ZooKeeperLease lease = leaseOverOwnNode();
    anotherSessionTakesThePath();
    assertThat(lease.isHeld()).as("no watch and no heartbeat has told it yet").isTrue();

    lease.heartbeat();
    awaitNotHeld(lease);
    assertLost(lease, NODE + " belongs to another session");
    lease.close();
  }

  @Test
  void aLeaseWithoutConfirmedContactForASessionTimeoutIsInDoubtAndSaysWhy() throws Exception {
    Stat stat = createOwnNode();
    // Its last confirmed contact was sent a whole session timeout ago, as after a long pause.
    Duration timeout = ZooKeeperTesting.SESSION_TIMEOUT;
    ZooKeeperLease lease =
        new ZooKeeperLease(
            KEY, NODE, stat, System.nanoTime() - timeout.toNanos(), timeout, client, l -> {});

    assertThat(lease.isHeld()).isFalse();
    assertThat(lease.timeLeft()).isZero();
    assertThatThrownBy(lease::ensureHeld)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining(" is in doubt")
        .hasMessageContaining("no confirmed contact with ZooKeeper for")
        .hasMessageContaining("the session may have expired");
    lease.close();
    assertThat(client.curator().checkExists().forPath(NODE)).isNull();
  }

  @Test
  void aClosedLeaseIsForgottenByItsServiceAndItsSharedClient() throws Exception {
    try (ZooKeeperLockService service =
        ZooKeeperTesting.ownProcessService(ZooKeeperTesting.options(server.getConnectString()))) {
      Lease first = service.acquire("db.forget", Duration.ofSeconds(5)).orElseThrow();
      Lease second = service.acquire("db.forget-too", Duration.ofSeconds(5)).orElseThrow();
      assertThat(service.openLeases()).isEqualTo(2);
      assertThat(service.shared().registeredLeases()).isEqualTo(2);

      first.close();
      assertThat(service.openLeases()).isEqualTo(1);
      assertThat(service.shared().registeredLeases()).isEqualTo(1);

      // A lost lease too: its close() is the only place that forgets it.
      other.delete().forPath(((ZooKeeperLease) second).nodePath());
      awaitNotHeld(second);
      second.close();
      assertThat(service.openLeases()).isZero();
      assertThat(service.shared().registeredLeases()).isZero();
    }
  }
}
