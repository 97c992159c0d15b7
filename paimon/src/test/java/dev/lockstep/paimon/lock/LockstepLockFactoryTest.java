package dev.lockstep.paimon.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.paimon.testing.LockBackends;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.test.TestingServer;
import org.apache.paimon.catalog.CatalogLock;
import org.apache.paimon.catalog.CatalogLockContext;
import org.apache.paimon.catalog.CatalogLockFactory;
import org.apache.paimon.factories.FactoryUtil;
import org.apache.paimon.options.Options;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The {@code lockstep-*} factories as Paimon finds and uses them, on a real ZooKeeper. */
class LockstepLockFactoryTest {

  private static TestingServer zookeeper;
  private static ExecutorService pool;

  @BeforeAll
  static void start() throws Exception {
    zookeeper = new TestingServer(true);
    pool = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stop() throws Exception {
    pool.shutdownNow();
    zookeeper.close();
  }

  private static CatalogLockContext context(Map<String, String> extra) {
    Map<String, String> options =
        new java.util.HashMap<>(LockBackends.zookeeper(zookeeper.getConnectString()));
    options.putAll(extra);
    return CatalogLockContext.fromOptions(Options.fromMap(options));
  }

  private static CatalogLockFactory discovered(String identifier) {
    return FactoryUtil.discoverFactory(
        CatalogLockFactory.class.getClassLoader(), CatalogLockFactory.class, identifier);
  }

  @Test
  void paimonFindsAllThreeIdentifiers() {
    assertThat(discovered("lockstep-zookeeper")).isInstanceOf(LockstepZooKeeperLockFactory.class);
    assertThat(discovered("lockstep-jdbc")).isInstanceOf(LockstepJdbcLockFactory.class);
    assertThat(discovered("lockstep-hive")).isInstanceOf(LockstepHiveLockFactory.class);
  }

  @Test
  void locksOfOneConfigurationShareOneClientUntilTheLastCloses() throws Exception {
    int before = SharedLockServices.openServices();
    CatalogLockFactory factory = discovered("lockstep-zookeeper");
    CatalogLock first = factory.createLock(context(Map.of()));
    CatalogLock second = factory.createLock(context(Map.of()));
    assertThat(SharedLockServices.openServices()).isEqualTo(before + 1);
    CatalogLock other = factory.createLock(context(Map.of("lock.zookeeper.base-path", "/other")));
    assertThat(SharedLockServices.openServices()).isEqualTo(before + 2);
    other.close();
    first.close();
    first.close();
    assertThat(SharedLockServices.openServices()).isEqualTo(before + 1);
    assertThat(second.runWithLock("db", "t", () -> "still works")).isEqualTo("still works");
    second.close();
    assertThat(SharedLockServices.openServices()).isEqualTo(before);
  }

  @Test
  void theFactorySurvivesJavaSerializationAndHoldsNoClient() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(discovered("lockstep-zookeeper"));
      out.writeObject(context(Map.of()));
    }
    CatalogLockFactory factory;
    CatalogLockContext context;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      factory = (CatalogLockFactory) in.readObject();
      context = (CatalogLockContext) in.readObject();
    }
    try (CatalogLock lock = factory.createLock(context)) {
      assertThat(lock.runWithLock("db", "t", () -> CurrentLease.get().isPresent())).isTrue();
    }
    assertThat(CurrentLease.get()).isEmpty();
  }

  @Test
  void aHeldLockMakesTheNextWaitAtMostTheAcquireTimeoutAndNeverStartsItsCallable()
      throws Exception {
    CatalogLockFactory factory = discovered("lockstep-zookeeper");
    try (CatalogLock holder = factory.createLock(context(Map.of()));
        CatalogLock waiter = factory.createLock(context(Map.of("lock-acquire-timeout", "1 s")))) {
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Future<Object> holding =
          pool.submit(
              () ->
                  holder.runWithLock(
                      "db",
                      "busy",
                      () -> {
                        held.countDown();
                        return release.await(1, TimeUnit.MINUTES);
                      }));
      assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
      AtomicBoolean started = new AtomicBoolean();
      assertThatThrownBy(() -> waiter.runWithLock("db", "busy", () -> started.getAndSet(true)))
          .isInstanceOf(TimeoutException.class)
          .hasMessageContaining("lock-acquire-timeout");
      assertThat(started).isFalse();
      assertThat(waiter.runWithLock("db", "other-table", () -> "free")).isEqualTo("free");
      release.countDown();
      holding.get(30, TimeUnit.SECONDS);
    }
  }
}
