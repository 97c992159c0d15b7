package dev.lockstep.engine;

import dev.lockstep.lock.CatalogLockFactory;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.testing.ForwardingLockService;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * {@code lock.type=engine-shared-in-jvm}, for the engine's tests only: every table object in the
 * JVM gets a view of one shared {@link InJvmLockService}, as separate processes would share one
 * real lock server. Closing a view does not close the shared service.
 */
public final class SharedInJvmLockFactory implements CatalogLockFactory {

  public static final String IDENTIFIER = "engine-shared-in-jvm";
  public static final InJvmLockService SHARED = new InJvmLockService(Duration.ofMinutes(1));
  private static final Map<String, CountDownLatch> WAITING = new ConcurrentHashMap<>();

  /**
   * Opens when an acquire of {@code key} that may wait (a timeout above zero) starts; lock-api's
   * committer makes one only after a try without waiting found the key held.
   */
  public static CountDownLatch waitingAcquire(String key) {
    return WAITING.computeIfAbsent(key, k -> new CountDownLatch(1));
  }

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  public LockService create(Map<String, String> options) {
    return new ForwardingLockService(SHARED, false) {
      @Override
      public Optional<Lease> acquire(String key, Duration timeout)
          throws IOException, InterruptedException {
        CountDownLatch waiting = WAITING.get(key);
        if (waiting != null && !timeout.isZero()) {
          waiting.countDown();
        }
        return super.acquire(key, timeout);
      }
    };
  }
}
