package dev.lockstep.lock;

import java.io.IOException;
import java.time.Duration;

/**
 * A held lock on one key: a handle, not a thread. Obtained from {@link LockService#acquire};
 * released by {@link #close()}, which is idempotent.
 *
 * <p>A lease can be lost without its holder doing anything: the ZooKeeper session expires, a
 * heartbeat fails, a TTL passes while the process is paused. Before each step that publishes, call
 * {@link #ensureHeld()}; bound every such step by {@link #timeLeft()}.
 */
public interface Lease extends AutoCloseable {

  /** The key this lease holds. */
  String key();

  /**
   * A number that strictly increases for every new holder of the same key (ZooKeeper node sequence,
   * JDBC per-key counter, metastore lock id). Comparing two tokens of one key tells which holder
   * came later.
   */
  long fencingToken();

  /**
   * How long the lease is guaranteed to stay held if this holder stopped talking to the lock
   * service right now; {@link Duration#ZERO} once lost or in doubt. A holder must not start a write
   * that may outlast it.
   */
  Duration timeLeft();

  /** Whether the lease is held and not in doubt, without blocking. */
  boolean isHeld();

  /**
   * Returns when the lease is held and not in doubt.
   *
   * @throws LockLostException once the lease is gone or in doubt, and forever after
   */
  void ensureHeld() throws LockLostException;

  /**
   * Releases the lease if this holder still owns it; never touches a lease that another holder took
   * over. Idempotent: later calls do nothing.
   *
   * @throws IOException when the release could not be confirmed; the lock service then frees the
   *     lock within its holder-death bound
   */
  @Override
  void close() throws IOException;
}
