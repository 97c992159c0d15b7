package dev.lockstep.lock;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;

/**
 * Runs an action while holding the lock of one table, in the shape Apache Paimon users know: {@code
 * runWithLock(database, table, callable)}. The key is {@code database.table}.
 *
 * <p>The lease stays held for the whole action; an action that publishes should use {@link
 * #runWithLease} and call {@link Lease#ensureHeld()} before it publishes.
 */
public final class CatalogLock implements Closeable {

  private final LockService service;
  private final Duration acquireTimeout;
  private final boolean ownsService;

  private CatalogLock(LockService service, Duration acquireTimeout, boolean ownsService) {
    this.service = service;
    this.acquireTimeout = acquireTimeout;
    this.ownsService = ownsService;
  }

  /** A catalog lock over {@code service}; closing it does not close the service. */
  public static CatalogLock over(LockService service, LockOptions options) {
    return new CatalogLock(service, options.acquireTimeout(), false);
  }

  /** Opens the service named by {@code lock.type}; closing the catalog lock closes it. */
  public static CatalogLock open(java.util.Map<String, String> options) throws IOException {
    LockOptions lockOptions = LockOptions.from(options);
    return new CatalogLock(LockServiceDiscovery.open(options), lockOptions.acquireTimeout(), true);
  }

  /** The lock key of a table. */
  public static String key(String database, String table) {
    return database + "." + table;
  }

  /** An action run under a held lease. */
  @FunctionalInterface
  public interface LeasedAction<T> {
    T run(Lease lease) throws Exception;
  }

  /**
   * Runs {@code callable} under the table's lock. Declared {@code throws Exception} only to keep
   * Paimon's shape: the callable's own exception passes through unchanged.
   *
   * @throws TimeoutException when the lock was not acquired within {@code lock-acquire-timeout}
   */
  public <T> T runWithLock(String database, String table, Callable<T> callable) throws Exception {
    return runWithLease(database, table, lease -> callable.call());
  }

  /** Like {@link #runWithLock}, handing the lease to the action. */
  public <T> T runWithLease(String database, String table, LeasedAction<T> action)
      throws Exception {
    String key = key(database, table);
    Optional<Lease> acquired = service.acquire(key, acquireTimeout);
    if (acquired.isEmpty()) {
      throw new TimeoutException(
          "Could not acquire the lock of "
              + key
              + " within "
              + dev.lockstep.options.Durations.format(acquireTimeout)
              + " (option '"
              + LockOptions.LOCK_ACQUIRE_TIMEOUT
              + "'). Another writer holds it; raise the timeout or"
              + " find the holder.");
    }
    Lease lease = acquired.get();
    Throwable primary = null;
    try {
      return action.run(lease);
    } catch (Throwable t) {
      primary = t;
      throw t;
    } finally {
      try {
        lease.close();
      } catch (IOException e) {
        if (primary != null) {
          primary.addSuppressed(e);
        } else {
          throw e;
        }
      }
    }
  }

  /** The service behind this lock. */
  public LockService service() {
    return service;
  }

  @Override
  public void close() throws IOException {
    if (ownsService) {
      service.close();
    }
  }
}
