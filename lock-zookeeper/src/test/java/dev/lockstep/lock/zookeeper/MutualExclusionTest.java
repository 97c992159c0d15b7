package dev.lockstep.lock.zookeeper;

import static dev.lockstep.lock.zookeeper.ZooKeeperTesting.scaled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.CatalogLock;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Mutual exclusion, fencing and ownership on one real ZooKeeper server. */
class MutualExclusionTest {

  private static final int CLIENTS = 8;
  private static final int INCREMENTS = 200;

  private static TestingServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = ZooKeeperTesting.startServer();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private static Map<String, String> options() {
    return ZooKeeperTesting.options(server.getConnectString());
  }

  /** A counter that loses updates unless the lock keeps every increment alone. */
  static final class UnsafeCounter {
    private int value;
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger maxInside = new AtomicInteger();
    final List<Long> tokensInOrder = Collections.synchronizedList(new ArrayList<>());

    void incrementUnder(Lease lease) throws LockLostException {
      maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
      try {
        lease.ensureHeld();
        tokensInOrder.add(lease.fencingToken());
        int read = value;
        Thread.yield();
        value = read + 1;
      } finally {
        inside.decrementAndGet();
      }
    }

    int value() {
      return value;
    }
  }

  @Test
  void eightClientsWithTheirOwnCuratorClientsLoseNoIncrement() throws Exception {
    UnsafeCounter counter = new UnsafeCounter();
    List<ZooKeeperLockService> services = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    try {
      for (int i = 0; i < CLIENTS; i++) {
        services.add(ZooKeeperTesting.ownProcessService(options()));
      }
      CyclicBarrier start = new CyclicBarrier(CLIENTS);
      List<Future<?>> runs = new ArrayList<>();
      for (ZooKeeperLockService service : services) {
        runs.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int n = 0; n < INCREMENTS; n++) {
                    Lease lease =
                        service.acquire("db.counter", scaled(Duration.ofSeconds(60))).orElseThrow();
                    try {
                      counter.incrementUnder(lease);
                    } finally {
                      lease.close();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> run : runs) {
        run.get(scaled(Duration.ofMinutes(3)).toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
      for (ZooKeeperLockService service : services) {
        service.close();
      }
    }
    assertThat(services.stream().map(ZooKeeperLockService::curator).distinct()).hasSize(CLIENTS);
    assertThat(counter.maxInside.get()).as("holders inside at once").isEqualTo(1);
    assertThat(counter.value()).isEqualTo(CLIENTS * INCREMENTS);
    assertThat(counter.tokensInOrder).hasSize(CLIENTS * INCREMENTS);
    for (int i = 1; i < counter.tokensInOrder.size(); i++) {
      assertThat(counter.tokensInOrder.get(i))
          .as("fencing token of holder %d", i)
          .isGreaterThan(counter.tokensInOrder.get(i - 1));
    }
  }

  @Test
  void fencingTokenKeepsIncreasingWhenTheKeyNodeIsDeletedAndItsSequenceRestarts() throws Exception {
    try (ZooKeeperLockService service = ZooKeeperTesting.ownProcessService(options())) {
      String keyPath = ZKPaths.makePath(service.options().basePath(), "db.recreated");
      long previous = 0;
      for (int round = 0; round < 3; round++) {
        Lease lease = service.acquire("db.recreated", Duration.ofSeconds(5)).orElseThrow();
        String node = ((ZooKeeperLease) lease).nodePath();
        assertThat(node).as("the sequence restarts with the key node").endsWith("lock-0000000000");
        assertThat(lease.fencingToken()).isGreaterThan(previous);
        previous = lease.fencingToken();
        lease.close();
        // What ZooKeeper's container manager does to an empty key node, done now.
        service.curator().delete().forPath(keyPath);
      }
    }
  }

  @Test
  void aTimedOutAcquireReturnsEmptyAndLeavesNoNodeBehind() throws Exception {
    try (ZooKeeperLockService holder = ZooKeeperTesting.ownProcessService(options());
        ZooKeeperLockService waiter = ZooKeeperTesting.ownProcessService(options())) {
      Lease held = holder.acquire("db.busy", Duration.ofSeconds(5)).orElseThrow();
      long start = System.nanoTime();
      Optional<Lease> none = waiter.acquire("db.busy", Duration.ofMillis(300));
      assertThat(none).isEmpty();
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofMillis(300));
      String keyPath = ZKPaths.makePath(holder.options().basePath(), "db.busy");
      assertThat(holder.curator().getChildren().forPath(keyPath)).hasSize(1);
      assertThat(held.isHeld()).isTrue();
      held.close();
      assertThat(waiter.acquire("db.busy", Duration.ZERO)).isPresent();
    }
  }

  @Test
  void aLeaseIsAHandleClosedOnceFromAnyThreadAndNeverReleasesTheNextHolder() throws Exception {
    try (ZooKeeperLockService first = ZooKeeperTesting.ownProcessService(options());
        ZooKeeperLockService second = ZooKeeperTesting.ownProcessService(options())) {
      Lease a = first.acquire("db.handle", Duration.ofSeconds(5)).orElseThrow();
      Thread closer =
          new Thread(
              () -> {
                try {
                  a.close();
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
              });
      closer.start();
      closer.join();
      Lease b = second.acquire("db.handle", Duration.ofSeconds(5)).orElseThrow();
      a.close();
      a.close();
      assertThatThrownBy(a::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("released");
      assertThat(a.timeLeft()).isEqualTo(Duration.ZERO);
      assertThat(b.isHeld()).isTrue();
      assertThat(second.curator().checkExists().forPath(((ZooKeeperLease) b).nodePath()))
          .isNotNull();
      assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
      assertThat(first.acquire("db.handle", Duration.ofMillis(200))).isEmpty();
      b.close();
    }
  }

  @Test
  void timeLeftStaysNearTheSessionTimeoutWhileHeartbeatsConfirmTheSession() throws Exception {
    try (ZooKeeperLockService service = ZooKeeperTesting.ownProcessService(options())) {
      Lease lease = service.acquire("db.heartbeat", Duration.ofSeconds(5)).orElseThrow();
      Duration session =
          service.curator().getZookeeperClient().getZooKeeper().getSessionTimeout() > 0
              ? Duration.ofMillis(
                  service.curator().getZookeeperClient().getZooKeeper().getSessionTimeout())
              : ZooKeeperTesting.SESSION_TIMEOUT;
      assertThat(lease.timeLeft()).isLessThanOrEqualTo(session).isPositive();
      // Hold for two session timeouts: heartbeats must keep the lease confirmed.
      Thread.sleep(session.multipliedBy(2).toMillis());
      lease.ensureHeld();
      assertThat(lease.timeLeft()).isGreaterThan(session.dividedBy(2));
      lease.close();
    }
  }

  @Test
  void catalogLockRunsUnderTheTableLockAndTimesOutAfterLockAcquireTimeout() throws Exception {
    Map<String, String> options = new java.util.HashMap<>(options());
    options.put(LockOptions.LOCK_ACQUIRE_TIMEOUT, "300 ms");
    try (CatalogLock catalogLock = CatalogLock.open(options);
        ZooKeeperLockService other = ZooKeeperTesting.ownProcessService(options())) {
      assertThat(catalogLock.service()).isInstanceOf(ZooKeeperLockService.class);
      long token =
          catalogLock.runWithLease(
              "db",
              "orders",
              lease -> {
                lease.ensureHeld();
                assertThat(other.acquire("db.orders", Duration.ZERO))
                    .as("taken while the action runs")
                    .isEmpty();
                return lease.fencingToken();
              });
      Lease held = other.acquire("db.orders", Duration.ofSeconds(5)).orElseThrow();
      assertThat(held.fencingToken()).isGreaterThan(token);
      assertThatThrownBy(() -> catalogLock.runWithLock("db", "orders", () -> "never"))
          .isInstanceOf(TimeoutException.class)
          .hasMessageContaining("lock-acquire-timeout");
      held.close();
      assertThat(catalogLock.runWithLock("db", "orders", () -> "ran")).isEqualTo("ran");
    }
  }

  @Test
  void servicesOnOneConnectStringShareOneClientClosedWithTheLastUser() throws Exception {
    CuratorClients registry = new CuratorClients();
    ZooKeeperLockOptions parsed = ZooKeeperLockOptions.from(options());
    ZooKeeperLockService one = new ZooKeeperLockService(parsed, registry);
    ZooKeeperLockService two = new ZooKeeperLockService(parsed, registry);
    CuratorFramework shared = one.curator();
    assertThat(two.curator()).isSameAs(shared);
    assertThat(registry.openClients()).isEqualTo(1);
    Lease lease = one.acquire("db.shared", Duration.ofSeconds(5)).orElseThrow();
    one.close();
    assertThat(lease.isHeld()).as("closing a service releases its leases").isFalse();
    assertThat(shared.getState().name()).isEqualTo("STARTED");
    assertThat(two.acquire("db.shared", Duration.ofSeconds(5))).isPresent();
    two.close();
    assertThat(registry.openClients()).isZero();
    assertThat(shared.getState().name()).isEqualTo("STOPPED");
  }
}
