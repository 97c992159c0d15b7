package dev.lockstep.lock;

import dev.lockstep.options.Options;
import dev.lockstep.testing.InJvmLockService;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code lock.type=in-jvm}, registered only for lock-api's own tests (the service file is left out
 * of the test-jar, so other modules' discovery never sees it). Each call builds a new, unshared
 * service whose lease time is {@code lock.in-jvm.ttl} (default 1 min). With {@code
 * lock.in-jvm.name}, the service is also kept under that name, so that a test can look at the very
 * service a committer opened ({@link #opened}).
 */
public final class InJvmLockFactory implements CatalogLockFactory {

  public static final String IDENTIFIER = "in-jvm";
  public static final String TTL = "lock.in-jvm.ttl";
  public static final String NAME = "lock.in-jvm.name";

  private static final Map<String, InJvmLockService> OPENED = new ConcurrentHashMap<>();

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  public LockService create(Map<String, String> options) {
    InJvmLockService service =
        new InJvmLockService(
            Options.of(options).getDuration(TTL, InJvmLockService.DEFAULT_LEASE_TTL));
    String name = options.get(NAME);
    if (name != null) {
      OPENED.put(name, service);
    }
    return service;
  }

  /** The service last opened with {@code lock.in-jvm.name=name}; forgets it. */
  public static InJvmLockService opened(String name) {
    InJvmLockService service = OPENED.remove(name);
    if (service == null) {
      throw new IllegalStateException("No in-jvm lock service was opened as '" + name + "'");
    }
    return service;
  }
}
