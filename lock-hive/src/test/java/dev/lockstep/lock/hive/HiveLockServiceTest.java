package dev.lockstep.lock.hive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Hive lock against a real metastore: acquire, wait, release, heartbeat, options. */
class HiveLockServiceTest {

  private static TestMetastore metastore;

  @BeforeAll
  static void startMetastore() throws Exception {
    metastore = TestMetastore.shared();
  }

  private static LockService open() throws Exception {
    return LockServiceDiscovery.open(metastore.lockOptions());
  }

  @Test
  void lockTypeHiveOpensTheMetastoreLock() throws Exception {
    try (LockService service = open()) {
      assertThat(service).isInstanceOf(HiveLockService.class);
      assertThat(service.holderDeathBound()).isGreaterThanOrEqualTo(TestMetastore.LOCK_TIMEOUT);
    }
  }

  @Test
  void acquireHoldsOneExclusiveTableLockAndCloseReleasesIt() throws Exception {
    try (LockService service = open()) {
      Lease lease = service.acquire("Sales.Orders", Duration.ofSeconds(5)).orElseThrow();
      assertThat(lease.key()).isEqualTo("Sales.Orders");
      assertThat(lease.isHeld()).isTrue();
      assertThat(lease.timeLeft()).isPositive().isLessThanOrEqualTo(TestMetastore.LOCK_TIMEOUT);
      lease.ensureHeld();
      assertThat(metastore.locksOn("sales", "orders"))
          .singleElement()
          .satisfies(
              lock -> {
                assertThat(lock.getLockid()).isEqualTo(lease.fencingToken());
                assertThat(lock.getState()).isEqualTo(LockState.ACQUIRED);
                assertThat(lock.getType().name()).isEqualTo("EXCLUSIVE");
                assertThat(lock.getTxnid()).isZero();
              });

      lease.close();
      lease.close(); // idempotent
      assertThat(metastore.locksOn("sales", "orders")).isEmpty();
      assertThat(lease.isHeld()).isFalse();
      assertThat(lease.timeLeft()).isZero();
      assertThatThrownBy(lease::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("released");
    }
  }

  @Test
  void aTimedOutWaiterLeavesNothingQueued() throws Exception {
    try (LockService holder = open();
        LockService waiter = open()) {
      Lease held = holder.acquire("db.queue", Duration.ofSeconds(5)).orElseThrow();

      assertThat(waiter.acquire("db.queue", Duration.ofMillis(600))).isEmpty();
      assertThat(waiter.acquire("db.queue", Duration.ZERO)).isEmpty();
      assertThat(metastore.locksOn("db", "queue"))
          .singleElement()
          .satisfies(lock -> assertThat(lock.getLockid()).isEqualTo(held.fencingToken()));

      held.close();
      try (Lease next = waiter.acquire("db.queue", Duration.ZERO).orElseThrow()) {
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      }
      assertThat(metastore.locksOn("db", "queue")).isEmpty();
    }
  }

  @Test
  void aWaiterGetsTheLockWhenTheHolderReleasesIt() throws Exception {
    try (LockService holder = open();
        LockService waiter = open()) {
      Lease held = holder.acquire("db.handover", Duration.ofSeconds(5)).orElseThrow();
      CompletableFuture<Lease> waiting =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return waiter.acquire("db.handover", Duration.ofSeconds(20)).orElseThrow();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      TimeUnit.MILLISECONDS.sleep(300);
      assertThat(waiting).isNotDone();
      assertThat(metastore.locksOn("db", "handover")).hasSize(2);

      held.close();
      Lease next = waiting.get(10, TimeUnit.SECONDS);
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      next.ensureHeld();
      next.close();
    }
  }

  @Test
  void heartbeatsKeepALockPastTheMetastoreTimeout() throws Exception {
    try (LockService holder = open();
        LockService other = open()) {
      Lease lease = holder.acquire("db.longrun", Duration.ofSeconds(5)).orElseThrow();
      long end = System.nanoTime() + TestMetastore.LOCK_TIMEOUT.multipliedBy(2).toNanos();
      while (System.nanoTime() < end) {
        TimeUnit.MILLISECONDS.sleep(500);
        metastore.expireTimedOutLocks();
        lease.ensureHeld();
      }
      assertThat(lease.timeLeft()).isGreaterThan(TestMetastore.LOCK_TIMEOUT.dividedBy(2));
      assertThat(other.acquire("db.longrun", Duration.ZERO)).isEmpty();
      lease.close();
    }
  }

  @Test
  void aLockRemovedBehindTheHoldersBackIsNoticedByTheNextHeartbeat() throws Exception {
    try (LockService service = open()) {
      Lease lease = service.acquire("db.removed", Duration.ofSeconds(5)).orElseThrow();
      metastore.unlock(lease.fencingToken()); // as an administrator's UNLOCK TABLE would
      long until = System.nanoTime() + TestMetastore.LOCK_TIMEOUT.toNanos();
      while (lease.isHeld() && System.nanoTime() < until) {
        TimeUnit.MILLISECONDS.sleep(50);
      }
      assertThatThrownBy(lease::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("no longer has the lock");
      lease.close();
    }
  }

  @Test
  void aLeaseWhoseLockTimeoutPassedWithoutAHeartbeatUnlocksItsLockAtOnce() throws Exception {
    // This client takes the lock timeout for 1 ms (the metastore's is LOCK_TIMEOUT): its lease is
    // past its deadline before its first heartbeat, as after a pause right after acquiring, while
    // the metastore still keeps the lock for LOCK_TIMEOUT from the lock call.
    Map<String, String> options = new HashMap<>(metastore.lockOptions());
    options.put("metastore.txn.timeout", "1ms");
    long start = System.nanoTime();
    try (LockService paused = LockServiceDiscovery.open(options);
        LockService other = open()) {
      Lease lease = paused.acquire("db.paused", Duration.ofSeconds(5)).orElseThrow();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5L * TestMetastore.TIMING);
      while (lease.isHeld() && System.nanoTime() < until) {
        TimeUnit.MILLISECONDS.sleep(5);
      }
      assertThatThrownBy(lease::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining(" is in doubt")
          .hasMessageContaining("no heartbeat was confirmed by the metastore at")
          .hasMessageContaining(metastore.uri())
          .hasMessageContaining("'metastore.txn.timeout' (1 ms)");

      // Not closed yet, the lease has already given the lock back: well before the metastore's
      // own timeout could have removed it, another holder gets it without waiting.
      long before = start + TestMetastore.LOCK_TIMEOUT.dividedBy(2).toNanos();
      while (!metastore.locksOn("db", "paused").isEmpty() && System.nanoTime() < before) {
        TimeUnit.MILLISECONDS.sleep(20);
      }
      assertThat(metastore.locksOn("db", "paused"))
          .as("the lock of a lease in doubt, within half the metastore's lock timeout")
          .isEmpty();
      try (Lease next = other.acquire("db.paused", Duration.ZERO).orElseThrow()) {
        assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        lease.close();
        next.ensureHeld();
        assertThat(metastore.locksOn("db", "paused"))
            .singleElement()
            .satisfies(lock -> assertThat(lock.getLockid()).isEqualTo(next.fencingToken()));
      }
    }
  }

  @Test
  void anInterruptedWaiterLeavesNothingQueued() throws Exception {
    try (LockService holder = open();
        LockService waiter = open()) {
      Lease held = holder.acquire("db.interrupted", Duration.ofSeconds(5)).orElseThrow();
      AtomicReference<Throwable> outcome = new AtomicReference<>();
      Thread thread =
          new Thread(
              () -> {
                try {
                  Optional<Lease> lease = waiter.acquire("db.interrupted", Duration.ofSeconds(30));
                  outcome.set(new AssertionError("acquired while interrupted: " + lease));
                } catch (Throwable t) {
                  outcome.set(t);
                }
              });
      thread.start();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (metastore.locksOn("db", "interrupted").size() < 2 && System.nanoTime() < until) {
        TimeUnit.MILLISECONDS.sleep(20);
      }
      thread.interrupt();
      thread.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
      assertThat(metastore.locksOn("db", "interrupted"))
          .singleElement()
          .satisfies(lock -> assertThat(lock.getLockid()).isEqualTo(held.fencingToken()));
      held.close();
    }
  }

  @Test
  void closingTheServiceReleasesItsLeases() throws Exception {
    LockService service = open();
    Lease lease = service.acquire("db.closing", Duration.ofSeconds(5)).orElseThrow();
    service.close();
    service.close();
    assertThat(lease.isHeld()).isFalse();
    assertThat(metastore.locksOn("db", "closing")).isEmpty();
  }

  @Test
  void keysMapToLowerCaseTablesAndKeysWithoutDatabaseUseTheDefault() throws Exception {
    try (LockService a = open();
        LockService b = open()) {
      try (Lease lease = a.acquire("Mixed.Case", Duration.ofSeconds(5)).orElseThrow()) {
        assertThat(b.acquire("mixed.case", Duration.ZERO)).isEmpty();
      }
      try (Lease lease = a.acquire("no-database-key", Duration.ofSeconds(5)).orElseThrow()) {
        assertThat(metastore.locksOn("default", "no-database-key")).hasSize(1);
      }
    }
  }

  @Test
  void readsTheMetastoreAddressAndTimeoutFromHiveSiteXml(@TempDir Path conf) throws Exception {
    Files.writeString(
        conf.resolve("hive-site.xml"),
        "<configuration>\n"
            + property("hive.metastore.uris", metastore.uri())
            + property("hive.txn.timeout", TestMetastore.LOCK_TIMEOUT.toSeconds() + "s")
            + "</configuration>\n");
    Map<String, String> options =
        Map.of("lock.type", "hive", "lock.hive.conf-dir", conf.toString());
    HiveLockOptions parsed = HiveLockOptions.from(options);
    assertThat(parsed.uris()).containsExactly(metastore.uri());
    assertThat(parsed.lockTimeout()).isEqualTo(TestMetastore.LOCK_TIMEOUT);
    assertThat(parsed.heartbeatInterval()).isEqualTo(TestMetastore.LOCK_TIMEOUT.dividedBy(4));
    try (LockService service = LockServiceDiscovery.open(options);
        Lease lease = service.acquire("db.fromsite", Duration.ofSeconds(5)).orElseThrow()) {
      lease.ensureHeld();
    }
  }

  private static String property(String name, String value) {
    return "  <property><name>" + name + "</name><value>" + value + "</value></property>\n";
  }

  @Test
  void badOptionsFailWithTheFix() {
    Map<String, String> base = new HashMap<>(Map.of("lock.type", "hive"));
    base.put("metastore.thrift.uris", "");
    assertThatThrownBy(() -> HiveLockOptions.from(base))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'uri'");

    base.put("uri", "http://metastore:9083");
    assertThatThrownBy(() -> HiveLockOptions.from(base))
        .hasMessageContaining("thrift://host:port")
        .hasMessageContaining("'uri'");

    base.put("uri", "thrift://a:9083, thrift://b:9083");
    base.put("lock.hive.uri", "thrift://lock-only:9083");
    assertThat(HiveLockOptions.from(base).uris()).containsExactly("thrift://lock-only:9083");

    base.put("lock.hive.heartbeat-interval", "10 min");
    assertThatThrownBy(() -> HiveLockOptions.from(base))
        .hasMessageContaining("lock.hive.heartbeat-interval")
        .hasMessageContaining("metastore.txn.timeout");

    base.remove("lock.hive.heartbeat-interval");
    base.put("lock.hive.conf-dir", "/nonexistent/conf");
    assertThatThrownBy(() -> HiveLockOptions.from(base))
        .hasMessageContaining("lock.hive.conf-dir")
        .hasMessageContaining("hive-site.xml");
  }

  @Test
  void aDeadAddressAmongSeveralIsSkipped() throws Exception {
    Map<String, String> options = new HashMap<>(metastore.lockOptions());
    options.put("uri", "thrift://127.0.0.1:1, " + metastore.uri());
    options.put("metastore.thrift.uri.selection", "SEQUENTIAL");
    try (LockService service = LockServiceDiscovery.open(options);
        Lease lease = service.acquire("db.failover", Duration.ofSeconds(5)).orElseThrow()) {
      lease.ensureHeld();
      assertThat(metastore.locksOn("db", "failover")).hasSize(1);
    }
  }

  @Test
  void anUnreachableMetastoreIsAClearError() throws Exception {
    Map<String, String> options = new HashMap<>(metastore.lockOptions());
    options.put("uri", "thrift://127.0.0.1:1");
    try (LockService service = LockServiceDiscovery.open(options)) {
      assertThatThrownBy(() -> service.acquire("db.unreachable", Duration.ofSeconds(1)))
          .isInstanceOf(java.io.IOException.class)
          .hasMessageContaining("thrift://127.0.0.1:1")
          .hasMessageContaining("'uri'");
    }
  }
}
