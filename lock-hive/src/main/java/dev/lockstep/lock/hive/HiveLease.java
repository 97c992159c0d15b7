package dev.lockstep.lock.hive;

import dev.lockstep.lock.AbstractLease;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.hadoop.hive.metastore.api.NoSuchLockException;
import org.apache.hadoop.hive.metastore.api.TxnAbortedException;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A held metastore lock: one EXCLUSIVE table-level lock, identified by its metastore lock id. The
 * states are {@link AbstractLease}'s; the primitives are the metastore's {@code heartbeat} and
 * {@code unlock} of the lock id.
 *
 * <p>Lost: a heartbeat was answered "no such lock" or "aborted". In doubt: no heartbeat was
 * confirmed within the lock timeout, so the metastore may have removed the lock and granted it to
 * another holder. Either way the lock id is unlocked in the background at once, so that a holder
 * that lost its lease never keeps the metastore's lock alive afterwards (a lock id is never reused,
 * so this cannot touch another holder).
 *
 * <p>Time is measured from the moment the last confirmed heartbeat (or the acquiring call) was
 * <em>sent</em>, on this JVM's monotonic clock: the metastore refreshed the lock no earlier than
 * that, so it cannot time the lock out before {@code sent + lockTimeout} (clock rates assumed
 * equal).
 */
final class HiveLease extends AbstractLease {

  private static final Logger LOG = LoggerFactory.getLogger(HiveLease.class);

  private final HiveLockService service;
  private final HiveLockService.Target target;
  private final Duration lockTimeout;

  HiveLease(
      HiveLockService service,
      String key,
      HiveLockService.Target target,
      long lockId,
      Duration lockTimeout,
      long acquiredSentNanos) {
    super(key, lockId, lockTimeout, acquiredSentNanos + lockTimeout.toNanos());
    this.service = service;
    this.target = target;
    this.lockTimeout = lockTimeout;
  }

  HiveLockService.Target target() {
    return target;
  }

  /**
   * The metastore lock id (also the fencing token): a database sequence, so later locks get more.
   */
  long lockId() {
    return fencingToken();
  }

  /** Heartbeats every {@code interval} on {@code executor}. */
  void beginHeartbeats(ScheduledExecutorService executor, Duration interval) {
    startHeartbeat(executor, interval);
  }

  @Override
  protected void heartbeat() {
    long sent = System.nanoTime();
    try {
      service.heartbeat(lockId());
      confirmed(sent);
    } catch (NoSuchLockException | TxnAbortedException e) {
      markLost(
          "the Hive Metastore at "
              + service.options().uris()
              + " no longer has the lock: it"
              + " timed out or was removed",
          e);
    } catch (TException | IOException e) {
      LOG.warn(
          "Heartbeat of the Hive lock on {} (lock id {}) failed, {} ms left before it is in"
              + " doubt: {}",
          target,
          lockId(),
          timeLeft().toMillis(),
          e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  protected void afterLoss() {
    service.abandon(this);
  }

  @Override
  protected String expiredReason(Duration sinceContact) {
    return "no heartbeat was confirmed by the metastore at "
        + service.options().uris()
        + " within its lock timeout 'metastore.txn.timeout' ("
        + Durations.format(lockTimeout)
        + "), so it may have been given to another holder";
  }

  @Override
  protected String describe() {
    return "The Hive lock on '" + key() + "' (lock id " + lockId() + ")";
  }

  /**
   * Unlocks the lock id. A lock the metastore already removed counts as released.
   *
   * @throws IOException when the unlock could not be confirmed; the metastore removes the lock
   *     after its timeout
   */
  @Override
  protected void release(State before) throws IOException {
    service.release(this, before == State.HELD);
  }
}
