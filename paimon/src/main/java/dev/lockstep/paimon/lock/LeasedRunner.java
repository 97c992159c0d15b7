package dev.lockstep.paimon.lock;

import dev.lockstep.lock.CatalogLock;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import dev.lockstep.options.Durations;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;

/**
 * Runs a callable under a Lockstep lease on one table: the Paimon-free core of the {@code
 * lockstep-*} catalog locks.
 *
 * <ol>
 *   <li>Acquire the lease of {@code database.table} within {@code lock-acquire-timeout} (the
 *       backend polls at most every {@code lock-check-max-sleep}); none → {@link TimeoutException},
 *       the callable never started.
 *   <li>{@link Lease#ensureHeld()}, then run the callable with the lease visible to Lockstep's
 *       FileIO ({@link CurrentLease}).
 *   <li>{@link Lease#ensureHeld()} again before returning the callable's result: a lease lost
 *       during the callable throws {@link dev.lockstep.lock.LockLostException} instead of returning
 *       it. Paimon 1.3.1 treats an exception from the snapshot commit as an unknown outcome: it
 *       cleans nothing up and its retry first looks for its own snapshot, so throwing is the safe
 *       answer.
 *   <li>Release the lease, also after a failure (a release error is attached as suppressed).
 * </ol>
 */
public final class LeasedRunner implements Closeable {

  private final String identifier;
  private final String connectionOption;
  private final SharedLockServices.Handle handle;
  private final Duration acquireTimeout;

  private LeasedRunner(
      String identifier,
      String connectionOption,
      SharedLockServices.Handle handle,
      Duration acquireTimeout) {
    this.identifier = identifier;
    this.connectionOption = connectionOption;
    this.handle = handle;
    this.acquireTimeout = acquireTimeout;
  }

  /**
   * Opens a runner on the JVM's shared service for these options.
   *
   * @param connectionOption the option(s) that say where the lock service is, for error messages
   * @throws IllegalArgumentException when an option is missing or invalid, naming the key
   */
  public static LeasedRunner open(
      String identifier,
      String connectionOption,
      dev.lockstep.lock.CatalogLockFactory backend,
      java.util.Map<String, String> options)
      throws IOException {
    LockOptions lockOptions = LockOptions.from(options);
    return new LeasedRunner(
        identifier,
        connectionOption,
        SharedLockServices.acquire(identifier, backend, options),
        lockOptions.acquireTimeout());
  }

  /** The service this runner shares. */
  public LockService service() {
    return handle.service();
  }

  /** Runs {@code callable} under the lease of {@code database.table}; see the class steps. */
  public <T> T run(String database, String table, Callable<T> callable) throws Exception {
    String key = CatalogLock.key(database, table);
    Optional<Lease> acquired;
    try {
      acquired = handle.service().acquire(key, acquireTimeout);
    } catch (IOException e) {
      throw new IOException(
          "lock.type="
              + identifier
              + " could not take the lock of "
              + key
              + ": "
              + String.valueOf(e.getMessage()).replace('\n', ' ')
              + " Check "
              + connectionOption
              + ".",
          e);
    }
    if (acquired.isEmpty()) {
      throw new TimeoutException(
          "lock.type="
              + identifier
              + " could not acquire the lock of "
              + key
              + " within "
              + Durations.format(acquireTimeout)
              + " (option '"
              + LockOptions.LOCK_ACQUIRE_TIMEOUT
              + "'). Another writer holds it; raise the timeout or"
              + " find the holder.");
    }
    Lease lease = acquired.get();
    Throwable primary = null;
    try {
      lease.ensureHeld();
      Lease previous = CurrentLease.enter(lease);
      T result;
      try {
        result = callable.call();
      } finally {
        CurrentLease.leave(previous);
      }
      lease.ensureHeld();
      return result;
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

  /** Drops this runner's reference to the shared service. Idempotent. */
  @Override
  public void close() throws IOException {
    handle.release();
  }
}
