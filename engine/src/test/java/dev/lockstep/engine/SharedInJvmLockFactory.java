package dev.lockstep.engine;

import dev.lockstep.lock.CatalogLockFactory;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * {@code lock.type=engine-shared-in-jvm}, for the engine's tests only: every table object in the JVM
 * gets a view of one shared {@link InJvmLockService}, as separate processes would share one real
 * lock server. Closing a view does not close the shared service.
 */
public final class SharedInJvmLockFactory implements CatalogLockFactory {

  public static final String IDENTIFIER = "engine-shared-in-jvm";
  static final InJvmLockService SHARED = new InJvmLockService(Duration.ofMinutes(1));

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  public LockService create(Map<String, String> options) {
    return new LockService() {
      @Override
      public Optional<Lease> acquire(String key, Duration timeout)
          throws IOException, InterruptedException {
        return SHARED.acquire(key, timeout);
      }

      @Override
      public Duration holderDeathBound() {
        return SHARED.holderDeathBound();
      }

      @Override
      public void close() {}
    };
  }
}
