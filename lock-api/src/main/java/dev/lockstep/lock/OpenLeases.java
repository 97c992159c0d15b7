package dev.lockstep.lock;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The leases a {@link LockService} handed out and has not seen closed, and whether the service is
 * closed: closing it releases the open leases first, then the service's own resources, once.
 * Thread-safe.
 *
 * @param <L> the backend's lease type
 */
public final class OpenLeases<L extends Lease> {

  private static final AtomicInteger THREADS = new AtomicInteger();

  private final Set<L> open = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ScheduledThreadPoolExecutor heartbeats;

  /** Open leases of a service that runs its heartbeats elsewhere. */
  public OpenLeases() {
    this.heartbeats = null;
  }

  /**
   * Open leases of a service whose heartbeats run on {@code threads} daemon threads named {@code
   * <name>-<n>} ({@link #heartbeats()}), shut down when the service closes.
   */
  public OpenLeases(String heartbeatThreadName, int threads) {
    this.heartbeats = heartbeatExecutor(heartbeatThreadName, threads);
  }

  /**
   * The heartbeat executor.
   *
   * @throws IllegalStateException when this was built without one
   */
  public ScheduledThreadPoolExecutor heartbeats() {
    if (heartbeats == null) {
      throw new IllegalStateException("These open leases have no heartbeat executor");
    }
    return heartbeats;
  }

  /** The service's own resources, freed after its leases. */
  @FunctionalInterface
  public interface Resources {
    void close() throws IOException;
  }

  /**
   * @throws IllegalStateException with {@code message} once the service is closed
   */
  public void checkOpen(String message) {
    if (closed.get()) {
      throw new IllegalStateException(message);
    }
  }

  public void add(L lease) {
    open.add(lease);
  }

  public void remove(L lease) {
    open.remove(lease);
  }

  /** How many leases are open now. */
  public int size() {
    return open.size();
  }

  /**
   * The first call closes every open lease (each once, even when one fails), then stops the
   * heartbeat executor (if any), then closes {@code resources}; later calls do nothing.
   *
   * @throws IOException the first release that could not be confirmed, the others suppressed in it
   */
  public void close(Resources resources) throws IOException {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      closeLeases();
    } finally {
      if (heartbeats != null) {
        heartbeats.shutdownNow();
      }
      resources.close();
    }
  }

  private void closeLeases() throws IOException {
    IOException failure = null;
    for (L lease : List.copyOf(open)) {
      try {
        lease.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * An executor for lease heartbeats: daemon threads named {@code <name>-<n>}, cancelled tasks
   * removed at once.
   */
  public static ScheduledThreadPoolExecutor heartbeatExecutor(String name, int threads) {
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            threads,
            runnable -> {
              Thread thread = new Thread(runnable, name + "-" + THREADS.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }
}
