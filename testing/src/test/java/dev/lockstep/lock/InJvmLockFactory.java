package dev.lockstep.lock;

import dev.lockstep.options.Options;
import dev.lockstep.testing.InJvmLockService;
import java.util.Map;

/**
 * {@code lock.type=in-jvm}, registered only for lock-api's own tests (the service file is left out
 * of the test-jar, so other modules' discovery never sees it). Each call builds a new, unshared
 * service whose lease time is {@code lock.in-jvm.ttl} (default 1 min).
 */
public final class InJvmLockFactory implements CatalogLockFactory {

  public static final String IDENTIFIER = "in-jvm";
  public static final String TTL = "lock.in-jvm.ttl";

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  public LockService create(Map<String, String> options) {
    return new InJvmLockService(
        Options.of(options).getDuration(TTL, InJvmLockService.DEFAULT_LEASE_TTL));
  }
}
