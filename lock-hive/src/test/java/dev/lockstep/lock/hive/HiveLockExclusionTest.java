package dev.lockstep.lock.hive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mutual exclusion and fencing under contention: 8 holders, each with its own metastore clients.
 */
class HiveLockExclusionTest {

  private static final int HOLDERS = 8;
  private static final int INCREMENTS = 100;

  private static TestMetastore metastore;

  @BeforeAll
  static void startMetastore() throws Exception {
    metastore = TestMetastore.shared();
  }

  /** Guarded by the metastore lock only: plain fields, so a second holder inside would show. */
  private int counter;

  private long lastToken;

  @Test
  void eightHoldersTimesOneHundredIncrementsMakeExactlyEightHundred() throws Exception {
    Map<String, String> options = new HashMap<>(metastore.lockOptions());
    options.put("lock-check-max-sleep", "25 ms");
    List<LockService> services = new ArrayList<>();
    for (int i = 0; i < HOLDERS; i++) {
      services.add(LockServiceDiscovery.open(options));
    }
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    AtomicInteger tokenOutOfOrder = new AtomicInteger();
    CyclicBarrier start = new CyclicBarrier(HOLDERS);
    ExecutorService pool = Executors.newFixedThreadPool(HOLDERS);
    long began = System.nanoTime();
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (LockService service : services) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  int done = 0;
                  for (int i = 0; i < INCREMENTS; i++) {
                    Lease lease =
                        service
                            .acquire(
                                "bench.counter", Duration.ofSeconds(60L * TestMetastore.TIMING))
                            .orElseThrow(() -> new AssertionError("acquire timed out"));
                    try {
                      lease.ensureHeld();
                      maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                      if (lease.fencingToken() <= lastToken) {
                        tokenOutOfOrder.incrementAndGet();
                      }
                      lastToken = lease.fencingToken();
                      int read = counter;
                      Thread.yield();
                      counter = read + 1;
                      inside.decrementAndGet();
                      done++;
                    } finally {
                      lease.close();
                    }
                  }
                  return done;
                }));
      }
      int total = 0;
      for (Future<Integer> result : results) {
        total += result.get(5L * TestMetastore.TIMING, TimeUnit.MINUTES);
      }
      System.out.println(
          HOLDERS * INCREMENTS
              + " lock round trips in "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)
              + " ms");
      assertThat(total).isEqualTo(HOLDERS * INCREMENTS);
      assertThat(counter).isEqualTo(HOLDERS * INCREMENTS);
      assertThat(maxInside.get()).isEqualTo(1);
      assertThat(tokenOutOfOrder.get()).as("fencing tokens that did not increase").isZero();
      assertThat(metastore.locksOn("bench", "counter")).isEmpty();
    } finally {
      pool.shutdownNow();
      for (LockService service : services) {
        service.close();
      }
    }
  }
}
