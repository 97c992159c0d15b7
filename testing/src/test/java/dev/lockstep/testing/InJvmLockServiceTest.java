package dev.lockstep.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The test lock keeps the whole {@code LockService} contract, so tests built on it mean something.
 */
class InJvmLockServiceTest {

  private static final Duration NOW = Duration.ZERO;

  @Test
  void fencingTokensStrictlyIncreasePerKey() throws Exception {
    try (InJvmLockService service = new InJvmLockService()) {
      long previous = 0;
      for (int i = 0; i < 5; i++) {
        try (Lease lease = service.acquire("a", NOW).orElseThrow()) {
          assertThat(lease.fencingToken()).isGreaterThan(previous);
          previous = lease.fencingToken();
        }
      }
      try (Lease other = service.acquire("b", NOW).orElseThrow()) {
        assertThat(other.fencingToken()).as("keys count on their own").isEqualTo(1);
      }
    }
  }

  @Test
  void aHeldKeyTimesOutWithAnEmptyResultAndIsFreeAfterRelease() throws Exception {
    try (InJvmLockService service = new InJvmLockService()) {
      Lease first = service.acquire("k", NOW).orElseThrow();

      assertThat(service.acquire("k", TestTiming.millis(100))).isEmpty();
      first.close();
      first.close(); // idempotent
      assertThat(service.acquire("k", NOW)).isPresent();
    }
  }

  @Test
  void renewExtendsTheLeaseByItsTtlFromNow() throws Exception {
    try (InJvmLockService service = new InJvmLockService(TestTiming.seconds(10))) {
      InJvmLockService.InJvmLease lease =
          (InJvmLockService.InJvmLease) service.acquire("k", NOW).orElseThrow();
      Thread.sleep(TestTiming.seconds(1).toMillis());
      Duration before = lease.timeLeft();

      lease.renew();

      assertThat(lease.timeLeft())
          .isGreaterThan(before)
          .isLessThanOrEqualTo(TestTiming.seconds(10));
    }
  }

  @Test
  void anExpiredLeaseIsLostForGoodAndItsKeyIsFree() throws Exception {
    try (InJvmLockService service = new InJvmLockService(TestTiming.millis(300))) {
      InJvmLockService.InJvmLease lease =
          (InJvmLockService.InJvmLease) service.acquire("k", NOW).orElseThrow();

      // Waits for the expiry; nobody released the key.
      Lease next = service.acquire("k", TestTiming.seconds(10)).orElseThrow();

      assertThat(lease.isHeld()).isFalse();
      assertThat(lease.timeLeft()).isZero();
      assertThatThrownBy(lease::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("expired");
      assertThatThrownBy(lease::renew).isInstanceOf(LockLostException.class);
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      assertThat(service.holderDeathBound()).isEqualTo(TestTiming.millis(300));
    }
  }

  @Test
  void expireSimulatesHolderDeathAndTheDeadHolderCannotReleaseTheNextOne() throws Exception {
    try (InJvmLockService service = new InJvmLockService()) {
      Lease dead = service.acquire("k", NOW).orElseThrow();

      assertThat(service.expire("k")).hasValue(dead.fencingToken());
      assertThatThrownBy(dead::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("revoked");
      Lease next = service.acquire("k", NOW).orElseThrow();
      dead.close();

      assertThat(next.isHeld()).as("a late close of the dead lease does not free the key").isTrue();
      assertThat(service.acquire("k", NOW)).isEmpty();
      assertThat(service.revokedLeases()).isEqualTo(1);
      assertThat(service.expire("nobody")).isEmpty();
    }
  }

  @Test
  void closingTheServiceEndsEveryLeaseAndIsIdempotent() throws Exception {
    InJvmLockService service = new InJvmLockService();
    Lease lease = service.acquire("k", NOW).orElseThrow();

    service.close();
    service.close();

    assertThat(lease.isHeld()).isFalse();
    assertThatThrownBy(() -> service.acquire("k", NOW))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void racingHoldersNeverOverlap() throws Exception {
    int threads = 8;
    int rounds = 50;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CyclicBarrier start = new CyclicBarrier(threads);
    try (InJvmLockService service = new InJvmLockService()) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int r = 0; r < rounds; r++) {
                    try (Lease lease = service.acquire("k", TestTiming.seconds(30)).orElseThrow()) {
                      maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                      tokens.add(lease.fencingToken());
                      Thread.yield();
                      inside.decrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(TestTiming.seconds(60).toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(maxInside).hasValue(1);
    assertThat(tokens).hasSize(threads * rounds).doesNotHaveDuplicates().isSorted();
  }
}
