package dev.lockstep.lock.hive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The metastore stops while a lock is held and comes back over the same Derby database: calls fail
 * with errors that name the metastore, the holder knows when its lease is in doubt, and there is
 * never a second holder afterwards.
 */
class HiveMetastoreOutageTest {

  private static final Duration TOLERANCE = Duration.ofSeconds(3L * TestMetastore.TIMING);

  private static TestMetastore metastore;

  @BeforeAll
  static void startMetastore() throws Exception {
    metastore = TestMetastore.shared();
  }

  @AfterEach
  void metastoreIsBack() throws Exception {
    metastore.start();
  }

  private static LockService open() throws IOException {
    return LockServiceDiscovery.open(metastore.lockOptions());
  }

  @Test
  void anOutageLongerThanTheLockTimeoutLeavesExactlyOneHolderAfterwards() throws Exception {
    try (LockService first = open();
        LockService second = open()) {
      Lease held = first.acquire("outage.long", Duration.ofSeconds(5)).orElseThrow();

      metastore.stop();
      assertThatThrownBy(() -> second.acquire("outage.long", Duration.ofSeconds(1)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(metastore.uri());
      assertThat(held.isHeld()).as("held until its lock timeout runs out").isTrue();
      awaitTrue(
          "the holder sees its lease in doubt",
          () -> !held.isHeld(),
          TestMetastore.LOCK_TIMEOUT.plus(TOLERANCE));
      assertThatThrownBy(held::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("outage.long");

      metastore.start();
      Lease next =
          second
              .acquire("outage.long", second.holderDeathBound().plus(TOLERANCE))
              .orElseThrow(() -> new AssertionError("the old holder's lock was never freed"));
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());

      // The old holder's heartbeats, reconnected now, must neither revive it nor free the new lock.
      TimeUnit.MILLISECONDS.sleep(TestMetastore.LOCK_TIMEOUT.dividedBy(2).toMillis());
      assertThatThrownBy(held::ensureHeld).isInstanceOf(LockLostException.class);
      held.close();
      next.ensureHeld();
      assertThat(metastore.locksOn("outage", "long"))
          .singleElement()
          .satisfies(lock -> assertThat(lock.getLockid()).isEqualTo(next.fencingToken()));
      next.close();
    }
  }

  @Test
  void anOutageShorterThanTheLockTimeoutKeepsTheHolder() throws Exception {
    try (LockService first = open();
        LockService second = open()) {
      Lease held = first.acquire("outage.short", Duration.ofSeconds(5)).orElseThrow();

      metastore.stop();
      assertThatThrownBy(() -> second.acquire("outage.short", Duration.ZERO))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("Cannot connect");
      TimeUnit.MILLISECONDS.sleep(TestMetastore.LOCK_TIMEOUT.dividedBy(4).toMillis());
      metastore.start();

      Duration renewed = TestMetastore.LOCK_TIMEOUT.multipliedBy(3).dividedBy(4);
      awaitTrue(
          "a heartbeat through a new connection renews the lease",
          () -> held.timeLeft().compareTo(renewed) > 0,
          TestMetastore.LOCK_TIMEOUT);
      held.ensureHeld();
      assertThat(second.acquire("outage.short", Duration.ofSeconds(1))).isEmpty();
      held.close();
      try (Lease next = second.acquire("outage.short", Duration.ofSeconds(5)).orElseThrow()) {
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      }
    }
  }

  @Test
  void closingAHeldLeaseThatCannotReachTheMetastoreSaysTheReleaseIsUnconfirmed() throws Exception {
    try (LockService first = open();
        LockService second = open()) {
      Lease held = first.acquire("outage.release", Duration.ofSeconds(5)).orElseThrow();

      metastore.stop();
      assertThat(held.isHeld()).as("held until its lock timeout runs out").isTrue();
      assertThatThrownBy(held::close)
          .isInstanceOf(IOException.class)
          .hasMessageContaining(
              "Could not confirm the release of the Hive lock on 'outage.release'")
          .hasMessageContaining("(lock id " + held.fencingToken() + ")")
          .hasMessageContaining(metastore.uri())
          .hasMessageContaining("the metastore removes it within");
      assertThat(held.isHeld()).isFalse();

      // As the message says: the lock stays on the metastore, which removes it after its timeout.
      metastore.start();
      assertThat(metastore.locksOn("outage", "release"))
          .singleElement()
          .satisfies(lock -> assertThat(lock.getLockid()).isEqualTo(held.fencingToken()));
      Lease next =
          second
              .acquire("outage.release", second.holderDeathBound().plus(TOLERANCE))
              .orElseThrow(() -> new AssertionError("the unreleased lock was never freed"));
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      next.close();
    }
  }

  private static void awaitTrue(String what, BooleanSupplier condition, Duration limit)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Not within " + limit + ": " + what);
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }
}
