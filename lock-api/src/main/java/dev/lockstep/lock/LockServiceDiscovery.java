package dev.lockstep.lock;

import java.io.IOException;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Finds the {@link CatalogLockFactory} named by {@code lock.type} through {@link ServiceLoader}.
 */
public final class LockServiceDiscovery {

  private LockServiceDiscovery() {}

  /** Opens the lock service named by {@code lock.type}, with the context class loader. */
  public static LockService open(Map<String, String> options) throws IOException {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    return open(options, loader != null ? loader : LockServiceDiscovery.class.getClassLoader());
  }

  /**
   * Opens the lock service named by {@code lock.type}.
   *
   * @throws IllegalArgumentException when {@code lock.type} is missing or unknown; the message
   *     lists the identifiers found on the classpath
   */
  public static LockService open(Map<String, String> options, ClassLoader classLoader)
      throws IOException {
    LockOptions lockOptions = LockOptions.from(options);
    Map<String, CatalogLockFactory> factories = factories(classLoader);
    if (lockOptions.type() == null) {
      throw new IllegalArgumentException(
          "Option '"
              + LockOptions.LOCK_TYPE
              + "' is required when a"
              + " lock is used. Lock types found on the classpath: "
              + factories.keySet()
              + ".");
    }
    CatalogLockFactory factory = factories.get(lockOptions.type());
    if (factory == null) {
      throw new IllegalArgumentException(
          "Unknown "
              + LockOptions.LOCK_TYPE
              + " '"
              + lockOptions.type()
              + "'. Lock types found on the classpath: "
              + factories.keySet()
              + ". Add the jar that serves it (lockstep-lock-zookeeper, lockstep-lock-jdbc,"
              + " lockstep-lock-hive) or fix the name.");
    }
    return factory.create(options);
  }

  /** Every identifier found, with its factory. */
  public static Map<String, CatalogLockFactory> factories(ClassLoader classLoader) {
    Map<String, CatalogLockFactory> byId = new TreeMap<>();
    for (CatalogLockFactory factory : ServiceLoader.load(CatalogLockFactory.class, classLoader)) {
      byId.putIfAbsent(factory.identifier(), factory);
    }
    return byId;
  }
}
