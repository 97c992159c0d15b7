package dev.lockstep.lock;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * A distributed lock service (ZooKeeper, Hive Metastore, a JDBC database) that hands out {@link
 * Lease}s on string keys. Implementations are thread-safe and may be shared by every table of a
 * catalog.
 *
 * <p>Guarantees every implementation keeps:
 *
 * <ol>
 *   <li>Mutual exclusion: at most one lease per key is held at any time, as seen by the service.
 *   <li>Fencing: each new holder of a key gets a strictly larger {@link Lease#fencingToken()}.
 *   <li>Holder death: a holder that dies or stops talking loses its lease within {@link
 *       #holderDeathBound()}, after which others can acquire it.
 *   <li>Ownership: releasing or renewing never affects a lease held by someone else.
 * </ol>
 */
public interface LockService extends Closeable {

  /**
   * Acquires {@code key}, waiting at most {@code timeout}.
   *
   * @return the lease, or empty when the timeout passed first (not an error)
   * @throws IOException when the service cannot be reached or answers with an error; the message
   *     names the service address
   * @throws InterruptedException when interrupted while waiting; nothing is held afterwards
   */
  Optional<Lease> acquire(String key, Duration timeout) throws IOException, InterruptedException;

  /**
   * The longest time after a holder dies (or is paused) before its lease is freed for others: the
   * ZooKeeper session timeout, the JDBC lease TTL, the metastore's lock timeout.
   */
  Duration holderDeathBound();

  /** Releases connections and heartbeat threads; held leases are released first. Idempotent. */
  @Override
  void close() throws IOException;
}
