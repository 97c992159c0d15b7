package dev.lockstep.lock.hive;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.OpenLeases;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hive.metastore.api.DataOperationType;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.NoSuchLockException;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Table locks held in the Hive Metastore's lock table ({@code HIVE_LOCKS}), the same locks Hive,
 * Paimon and Iceberg take on a Hive catalog.
 *
 * <p>Acquire ({@link #acquire}):
 *
 * <ol>
 *   <li>The key {@code database.table} (a key without a dot: {@code lock.hive.default-database}) is
 *       lower-cased, as Hive does, and requested as one EXCLUSIVE table-level lock outside any
 *       transaction, tagged with a fresh agent id.
 *   <li>While the metastore answers WAITING, poll {@code checkLock} (which also refreshes the
 *       waiting lock's heartbeat) with growing sleeps up to {@code lock-check-max-sleep}, never
 *       longer than the heartbeat interval, until {@code lock-acquire-timeout}.
 *   <li>ACQUIRED: the lease starts heartbeating. Timed out or interrupted: the waiting lock is
 *       unlocked before returning, so nothing is left queued. A waiting lock that the metastore
 *       timed out is requested again.
 *   <li>When the answer to the lock request is lost (connection reset after sending), the request
 *       may sit in the metastore: the locks tagged with our agent id are looked up and unlocked,
 *       then an {@link IOException} is raised. If even that fails, the lock expires after the lock
 *       timeout.
 * </ol>
 *
 * <p>Heartbeats run on this service's threads every {@code lock.hive.heartbeat-interval}. A
 * heartbeat answered "no such lock" or "aborted" marks the lease lost. A lease with no heartbeat
 * confirmed within the lock timeout is in doubt: it is marked lost and unlocked, so that a holder
 * that lost its lease never keeps the metastore's lock alive afterwards.
 *
 * <p>Thread-safe. Metastore clients are pooled ({@link MetastoreClientPool}).
 */
public final class HiveLockService implements LockService {

  private static final Logger LOG = LoggerFactory.getLogger(HiveLockService.class);
  private static final long FIRST_CHECK_SLEEP_MILLIS = 20;

  /** The metastore table a key locks. */
  record Target(String database, String table) {
    @Override
    public String toString() {
      return database + "." + table;
    }
  }

  private final HiveLockOptions options;
  private final MetastoreClientPool pool;
  private final OpenLeases<HiveLease> open = new OpenLeases<>("lockstep-hive-heartbeat", 2);
  private final String user;
  private final String hostname;

  private HiveLockService(HiveLockOptions options) {
    this.options = options;
    this.pool = new MetastoreClientPool(options.conf(), options.uris(), options.poolSize());
    this.user = System.getProperty("user.name", "lockstep");
    this.hostname = localHostname();
  }

  /** A service for {@code options}; connects lazily, on the first call. */
  public static HiveLockService open(HiveLockOptions options) {
    return new HiveLockService(options);
  }

  /** The parsed options. */
  public HiveLockOptions options() {
    return options;
  }

  /** The metastore's lock timeout plus one housekeeping pass ({@link HiveLockOptions}). */
  @Override
  public Duration holderDeathBound() {
    return options.holderDeathBound();
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout)
      throws IOException, InterruptedException {
    open.checkOpen("The Hive lock service is closed");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("The acquire timeout must not be negative: " + timeout);
    }
    Target target = target(key);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String agent = "lockstep-" + UUID.randomUUID();
      LockRequest request = request(target, agent);
      long sent = System.nanoTime();
      LockResponse response;
      try {
        response = pool.call(client -> client.lock(request));
      } catch (TException e) {
        if (MetastoreClientPool.isAnswer(e)) {
          throw new IOException(
              "The Hive Metastore at "
                  + options.uris()
                  + " refused the lock on "
                  + target
                  + ": "
                  + e,
              e);
        }
        throw abandonLostRequest(target, agent, e);
      }
      Optional<Lease> lease = await(key, target, response, sent, deadline);
      if (lease != null) {
        return lease;
      }
      LOG.debug(
          "The waiting lock on {} was timed out by the metastore; requesting it again", target);
    }
  }

  /**
   * Waits for the lock of {@code response} until {@code deadline}.
   *
   * @return the lease, empty after the deadline (the waiting lock unlocked), or {@code null} when
   *     the metastore removed the waiting lock and it must be requested again
   */
  private Optional<Lease> await(
      String key, Target target, LockResponse response, long sent, long deadline)
      throws IOException, InterruptedException {
    long lockId = response.getLockid();
    long sleepMillis = FIRST_CHECK_SLEEP_MILLIS;
    long maxSleepMillis =
        Math.max(
            1,
            Math.min(
                options.lock().checkMaxSleep().toMillis(), options.heartbeatInterval().toMillis()));
    LockResponse current = response;
    while (true) {
      LockState state = current.getState();
      if (state == LockState.ACQUIRED) {
        return Optional.of(started(key, target, lockId, sent));
      }
      if (state != LockState.WAITING) {
        IOException failure =
            new IOException(
                "The Hive Metastore at "
                    + options.uris()
                    + " answered "
                    + state
                    + " to the lock on "
                    + target
                    + " (lock id "
                    + lockId
                    + ").");
        unlockQuietly(lockId, failure);
        throw failure;
      }
      long remainingNanos = deadline - System.nanoTime();
      if (remainingNanos <= 0) {
        IOException failure = new IOException("unlock of the waiting lock " + lockId);
        if (!unlockQuietly(lockId, failure)) {
          LOG.warn(
              "Could not unlock the waiting lock {} on {} after the acquire timeout; the"
                  + " metastore removes it within {}",
              lockId,
              target,
              Durations.format(options.lockTimeout()),
              failure);
        }
        return Optional.empty();
      }
      try {
        TimeUnit.MILLISECONDS.sleep(
            Math.min(sleepMillis, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos))));
      } catch (InterruptedException e) {
        IOException unlock = new IOException("unlock of the waiting lock " + lockId);
        if (!unlockQuietly(lockId, unlock)) {
          e.addSuppressed(unlock);
        }
        throw e;
      }
      sleepMillis = Math.min(sleepMillis * 2, maxSleepMillis);
      sent = System.nanoTime();
      try {
        current = callRetryingOnce(client -> client.checkLock(lockId));
      } catch (NoSuchLockException e) {
        return null;
      } catch (InterruptedException e) {
        IOException unlock = new IOException("unlock of the waiting lock " + lockId);
        if (!unlockQuietly(lockId, unlock)) {
          e.addSuppressed(unlock);
        }
        throw e;
      } catch (TException | IOException e) {
        IOException failure =
            new IOException(
                "Lost contact with the Hive Metastore at "
                    + options.uris()
                    + " while waiting for the lock on "
                    + target
                    + " (lock id "
                    + lockId
                    + "): "
                    + e.getMessage(),
                e);
        unlockQuietly(lockId, failure);
        throw failure;
      }
    }
  }

  private HiveLease started(String key, Target target, long lockId, long sent) {
    HiveLease lease = new HiveLease(this, key, target, lockId, options.lockTimeout(), sent);
    open.add(lease);
    lease.beginHeartbeats(open.heartbeats(), options.heartbeatInterval());
    LOG.debug("Acquired the Hive lock on {} (lock id {})", target, lockId);
    return lease;
  }

  /** The heartbeat primitive: one metastore heartbeat of {@code lockId}. */
  void heartbeat(long lockId) throws TException, IOException, InterruptedException {
    pool.call(
        client -> {
          client.heartbeat(0, lockId);
          return null;
        });
  }

  /**
   * {@code lease} is no longer held: forget it and unlock its lock id in the background, so that it
   * cannot keep the metastore's lock alive.
   */
  void abandon(HiveLease lease) {
    open.remove(lease);
    try {
      open.heartbeats()
          .execute(
              () -> {
                if (!unlockQuietly(lease.lockId(), new IOException("unlock of " + lease))) {
                  LOG.debug(
                      "Could not unlock the lock {} that is no longer held; the metastore removes it",
                      lease.lockId());
                }
              });
    } catch (RejectedExecutionException e) {
      // The service is closing; the metastore removes the lock after its timeout.
    }
  }

  /** Releases {@code lease}; called once, by {@link HiveLease#close()}. */
  void release(HiveLease lease, boolean held) throws IOException {
    open.remove(lease);
    if (!held) {
      // Removed by the metastore, or in doubt: unlock anyway (a lock id is never reused, so this
      // cannot touch another holder), but the lease was gone before; a failure changes nothing.
      unlockQuietly(lease.lockId(), new IOException("unlock of a lost lease"));
      return;
    }
    try {
      callRetryingOnce(
          client -> {
            client.unlock(lease.lockId());
            return null;
          });
      LOG.debug("Released the Hive lock on {} (lock id {})", lease.target(), lease.lockId());
    } catch (NoSuchLockException e) {
      LOG.debug("The Hive lock {} was already gone at release", lease.lockId());
    } catch (TException | IOException e) {
      throw new IOException(
          "Could not confirm the release of the Hive lock on '"
              + lease.key()
              + "' (lock id "
              + lease.lockId()
              + ") at "
              + options.uris()
              + "; the metastore removes it"
              + " within "
              + Durations.format(holderDeathBound())
              + ". Cause: "
              + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "Interrupted while releasing the Hive lock "
              + lease.lockId()
              + "; the metastore removes it within "
              + Durations.format(holderDeathBound()));
    }
  }

  /**
   * Unlocks a lock id, tolerating "no such lock".
   *
   * @return whether the lock is gone; on failure the cause is added to {@code onFailure}
   */
  private boolean unlockQuietly(long lockId, IOException onFailure) {
    boolean interrupted = Thread.interrupted();
    try {
      callRetryingOnce(
          client -> {
            client.unlock(lockId);
            return null;
          });
      return true;
    } catch (NoSuchLockException e) {
      return true;
    } catch (Exception e) {
      onFailure.addSuppressed(e);
      return false;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The answer to a lock request was lost: unlock whatever the metastore queued for {@code agent}.
   *
   * @return the exception to raise
   */
  private IOException abandonLostRequest(Target target, String agent, Exception cause) {
    IOException failure =
        new IOException(
            "Lost the answer of the Hive Metastore at "
                + options.uris()
                + " to the lock request on "
                + target
                + ": "
                + cause.getMessage(),
            cause);
    try {
      ShowLocksRequest show = new ShowLocksRequest();
      show.setDbname(target.database());
      show.setTablename(target.table());
      List<ShowLocksResponseElement> locks =
          callRetryingOnce(client -> client.showLocks(show)).getLocks();
      for (ShowLocksResponseElement lock :
          locks == null ? List.<ShowLocksResponseElement>of() : locks) {
        if (agent.equals(lock.getAgentInfo())) {
          unlockQuietly(lock.getLockid(), failure);
        }
      }
    } catch (Exception e) {
      failure.addSuppressed(e);
      LOG.warn(
          "Could not look up the lock request on {} whose answer was lost; if it reached the"
              + " metastore it expires within {}",
          target,
          Durations.format(holderDeathBound()));
    }
    return failure;
  }

  /** Runs an idempotent call, once more on a fresh connection after a connection failure. */
  private <T> T callRetryingOnce(MetastoreClientPool.Call<T> call)
      throws TException, IOException, InterruptedException {
    try {
      return pool.call(call);
    } catch (TException e) {
      if (MetastoreClientPool.isAnswer(e)) {
        throw e;
      }
      LOG.debug("Metastore call failed on its connection, retrying once: {}", e.toString());
      return pool.call(call);
    }
  }

  /** The metastore table that {@code key} locks. */
  Target target(String key) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("A lock key must not be blank");
    }
    int dot = key.indexOf('.');
    String database = dot > 0 ? key.substring(0, dot) : options.defaultDatabase();
    String table = dot > 0 ? key.substring(dot + 1) : key;
    if (table.isEmpty()) {
      throw new IllegalArgumentException(
          "The lock key '" + key + "' names no table; write" + " database.table");
    }
    return new Target(database.toLowerCase(Locale.ROOT), table.toLowerCase(Locale.ROOT));
  }

  private LockRequest request(Target target, String agent) {
    LockComponent component =
        new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, target.database());
    component.setTablename(target.table());
    component.setOperationType(DataOperationType.NO_TXN);
    component.setIsTransactional(false);
    LockRequest request = new LockRequest(List.of(component), user, hostname);
    request.setAgentInfo(agent);
    return request;
  }

  /** Releases every open lease, stops the heartbeats and closes the connections. Idempotent. */
  @Override
  public void close() throws IOException {
    open.close(pool::close);
  }

  private static String localHostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }

  @Override
  public String toString() {
    return "HiveLockService" + options.uris();
  }
}
