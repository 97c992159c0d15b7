package dev.lockstep.lock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.OpenLeases;
import dev.lockstep.lock.jdbc.JdbcLockOptions.WaitMode;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock service on a table of MySQL, MariaDB or PostgreSQL, through a bounded HikariCP pool.
 *
 * <p>Acquiring key K, one attempt:
 *
 * <ol>
 *   <li>Borrow a connection (validated by the pool) and note {@code t0 = System.nanoTime()}.
 *   <li>Take over K's row if it is free: one UPDATE sets a new owner id, adds one to the fencing
 *       token and sets the expiry to the database's now plus {@code lease-ttl}. The database row
 *       lock lets at most one racing client see the row free.
 *   <li>No row updated: if K has a row, another client holds it: the attempt failed, give the
 *       connection back. Else INSERT the row; a duplicate key means another client inserted it
 *       first.
 *   <li>Read the token back (owner-guarded) with the database's time left; the local deadline is
 *       {@code t0} plus that time left.
 *   <li>Keep the connection as the lease's session and renew on it every {@code lease-ttl/3}.
 * </ol>
 *
 * <p>Failed attempts repeat until the acquire timeout. With {@code lock.jdbc.wait=database} (the
 * default) each attempt first waits up to {@link #slice()} in the key's queue in the database
 * ({@link WakeLock}), whose named lock a holder keeps until just after it frees the row: the
 * release wakes the next waiter at once. The named lock only wakes; the attempt asks the row either
 * way. A waiter that got the named lock and still not the row polls after a jittered wait doubling
 * from 10 ms to min(1 s, the slice). With {@code poll} it polls after a jittered wait doubling from
 * 10 ms to {@code lock-check-max-sleep}. A holder that dies stops renewing; its row expires at most
 * {@code lease-ttl} later, so {@link #holderDeathBound()} is the TTL and a waiter gets the key
 * within the TTL plus one wait.
 *
 * <p>Every held lease keeps one pooled connection; {@code lock.jdbc.pool-size} bounds the leases
 * held at once plus the attempts in flight.
 */
public final class JdbcLockService implements LockService {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcLockService.class);
  private static final Duration MAX_POOL_WAIT = Duration.ofSeconds(10);
  private static final long FIRST_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final long MAX_SLICE_NANOS = TimeUnit.SECONDS.toNanos(5);
  private static final long MAX_QUEUED_POLL_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final AtomicInteger POOLS = new AtomicInteger();

  /** setNetworkTimeout runs its (tiny) task inline. */
  private static final Executor INLINE = Runnable::run;

  private final JdbcLockOptions options;
  private final HikariDataSource pool;
  private final LockTable table;
  private final WakeLock wake;
  private final OpenLeases<JdbcLease> held = new OpenLeases<>("lockstep-jdbc-heartbeat", 2);
  private final String ownerPrefix;
  private final int sessionTimeoutMillis;

  private JdbcLockService(
      JdbcLockOptions options, HikariDataSource pool, LockTable table, Duration sessionTimeout) {
    this.options = options;
    this.pool = pool;
    this.table = table;
    this.wake = new WakeLock(options.dialect(), options.table(), table.queryTimeoutSeconds());
    this.sessionTimeoutMillis = (int) Math.max(1, sessionTimeout.toMillis());
    this.ownerPrefix = hostName() + "/" + ProcessHandle.current().pid() + "/";
  }

  /** Opens the service from catalog options ({@code lock.jdbc.*} and the generic lock options). */
  public static JdbcLockService open(Map<String, String> options) throws IOException {
    return open(JdbcLockOptions.from(options));
  }

  /**
   * Connects, and creates the lock table when it is missing.
   *
   * @throws IOException when the database cannot be reached or the table cannot be created; the
   *     message names the URL (secrets masked) and the table
   */
  public static JdbcLockService open(JdbcLockOptions options) throws IOException {
    JdbcDialect dialect = options.dialect();
    // A statement or network call slower than a third of the TTL counts as failed: a renewal that
    // slow would leave too little of the lease to trust.
    Duration sessionTimeout = options.leaseTtl().dividedBy(3);
    HikariConfig config = new HikariConfig();
    config.setPoolName("lockstep-jdbc-lock-" + POOLS.incrementAndGet());
    config.setJdbcUrl(options.url());
    try {
      config.setDriverClassName(dialect.driverClassName());
    } catch (RuntimeException e) {
      throw new IOException(
          "The JDBC driver "
              + dialect.driverClassName()
              + " for "
              + options.redactedUrl()
              + " is not on the classpath. Add it (lockstep-lock-jdbc brings"
              + " mysql-connector-j, mariadb-java-client and postgresql unless they were excluded).",
          e);
    }
    if (options.user() != null) {
      config.setUsername(options.user());
    }
    if (options.password() != null) {
      config.setPassword(options.password());
    }
    config.setMaximumPoolSize(options.poolSize());
    config.setMinimumIdle(1);
    config.setAutoCommit(true);
    config.setConnectionTimeout(poolWait(options).toMillis());
    config.setValidationTimeout(Math.max(250, Math.min(5_000, sessionTimeout.toMillis())));
    config.setInitializationFailTimeout(1);
    connectTimeoutDefaults(dialect).forEach(config::addDataSourceProperty);
    options.driverProperties().forEach(config::addDataSourceProperty);
    String where = options.redactedUrl() + " (table " + options.table() + ")";
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(config);
    } catch (RuntimeException e) {
      throw new IOException(
          "Cannot connect to the lock database "
              + where
              + " as "
              + (options.user() == null ? "the driver's default user" : "'" + options.user() + "'")
              + ": "
              + rootMessage(e)
              + ". Check '"
              + JdbcLockOptions.URL
              + "', '"
              + JdbcLockOptions.USER
              + "' and '"
              + JdbcLockOptions.PASSWORD
              + "'.",
          e);
    }
    LockTable table = new LockTable(dialect, options.table(), options.leaseTtl(), sessionTimeout);
    try (Connection connection = pool.getConnection()) {
      table.ensureExists(connection);
    } catch (SQLException e) {
      pool.close();
      throw new IOException("Cannot prepare the lock table on " + where + ": " + e.getMessage(), e);
    }
    LOG.info(
        "JDBC lock ready on {} table {} (lease-ttl {}, pool-size {})",
        options.redactedUrl(),
        options.table(),
        Durations.format(options.leaseTtl()),
        options.poolSize());
    return new JdbcLockService(options, pool, table, sessionTimeout);
  }

  /** How long to wait for a pooled connection: the TTL, within 250 ms .. 10 s. */
  private static Duration poolWait(JdbcLockOptions options) {
    Duration ttl = options.leaseTtl();
    return ttl.compareTo(MAX_POOL_WAIT) > 0 ? MAX_POOL_WAIT : ttl;
  }

  private static Map<String, String> connectTimeoutDefaults(JdbcDialect dialect) {
    switch (dialect) {
      case POSTGRESQL:
        return Map.of("connectTimeout", "10");
      default:
        return Map.of("connectTimeout", "10000");
    }
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout)
      throws IOException, InterruptedException {
    held.checkOpen("The JDBC lock service on " + options.redactedUrl() + " is closed.");
    LockKey lockKey = LockKey.of(key);
    long deadline = System.nanoTime() + timeout.toNanos();
    long wait = FIRST_WAIT_NANOS;
    boolean queueing = options.waitMode() == WaitMode.DATABASE;
    long slice = slice();
    long maxWait =
        queueing
            ? Math.min(MAX_QUEUED_POLL_NANOS, slice)
            : options.lock().checkMaxSleep().toNanos();
    SQLException previousFailure = null;
    while (true) {
      if (Thread.interrupted()) {
        throw new InterruptedException("Interrupted while acquiring '" + key + "'");
      }
      Connection connection;
      try {
        connection = pool.getConnection();
      } catch (SQLException e) {
        throw new IOException(
            "No connection to the lock database "
                + options.redactedUrl()
                + " within "
                + Durations.format(poolWait(options))
                + " while acquiring '"
                + key
                + "': "
                + e.getMessage()
                + ". Either the database is unreachable, or all "
                + options.poolSize()
                + " connections of '"
                + JdbcLockOptions.POOL_SIZE
                + "' are busy (this client holds "
                + held.size()
                + " leases, and every held lease keeps one connection).",
            e);
      }
      boolean queued = false;
      try {
        if (queueing) {
          queued = queue(lockKey, connection, Math.min(slice, deadline - System.nanoTime()));
        }
        JdbcLease lease = attempt(lockKey, connection, queued);
        if (lease != null) {
          return Optional.of(lease);
        }
        previousFailure = null;
      } catch (SQLException e) {
        // One failure may be a connection that died in the pool: retry at once on a fresh one (even
        // past the timeout: an error is never reported as a timeout). Two in a row is the database.
        if (previousFailure != null) {
          e.addSuppressed(previousFailure);
          throw new IOException(
              "JDBC lock on "
                  + options.redactedUrl()
                  + " (table "
                  + table.name()
                  + ") could not acquire '"
                  + key
                  + "': "
                  + e.getMessage(),
              e);
        }
        previousFailure = e;
        LOG.debug("Acquire attempt on '{}' failed, retrying once: {}", key, e.toString());
        continue;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      if (queueing && !queued) {
        // Waited in the database behind the holder or an earlier waiter: ask again at once.
        continue;
      }
      // Polling, or first in the queue and still refused: the row's holder does not keep the named
      // lock (its session was lost, or it won while its own wait timed out). Poll until it frees.
      long sleep = Math.min(left, wait / 2 + ThreadLocalRandom.current().nextLong(wait / 2 + 1));
      TimeUnit.NANOSECONDS.sleep(sleep);
      wait = Math.min(maxWait, wait * 2);
    }
  }

  /**
   * The longest wait in the database's queue before the row is asked again: at most 5 s (so the
   * connection goes back to the pool well within the pool's wait of up to 10 s), {@code
   * lock-check-max-sleep} and a sixth of the TTL (well inside the statement and network timeouts of
   * a third of it). A waiter whose wait ends queues again at the back, so a slice shorter than a
   * few commits of the waiters ahead turns the queue into a lottery: 1 s gave a p99 of seconds with
   * 8 writers. The poll wait in {@code database} mode is at most 1 s and the slice.
   */
  private long slice() {
    return Math.min(
        MAX_SLICE_NANOS,
        Math.min(options.lock().checkMaxSleep().toNanos(), options.leaseTtl().toNanos() / 6));
  }

  /**
   * Waits up to {@code waitNanos} in the key's queue ({@link WakeLock}) on {@code connection}.
   * Evicts the connection when the wait fails.
   *
   * @return whether this session now holds the key's named lock
   */
  private boolean queue(LockKey key, Connection connection, long waitNanos) throws SQLException {
    try {
      return wake.await(connection, key, waitNanos);
    } catch (SQLException e) {
      if (dialect().isContention(e)) {
        // A deadlock between two clients each holding one key and queueing for the other's.
        return false;
      }
      giveBack(connection, true);
      throw e;
    }
  }

  /**
   * One attempt on a connection borrowed from the pool, as the class javadoc numbers it. The
   * connection becomes the lease's session, or goes back to the pool (evicted after a failure).
   *
   * @param queued whether the connection holds the key's named lock: the lease keeps it, a failed
   *     attempt frees it
   * @return the lease, or {@code null} when the key is held by someone else
   */
  private JdbcLease attempt(LockKey key, Connection connection, boolean queued)
      throws SQLException {
    boolean keep = false;
    boolean broken = false;
    String owner = ownerPrefix + UUID.randomUUID();
    boolean won = false;
    try {
      connection.setNetworkTimeout(INLINE, sessionTimeoutMillis);
      long sent = System.nanoTime();
      // A row that exists but was not taken over is held: skip the INSERT, whose duplicate-key
      // error
      // some drivers log on every contended attempt.
      won =
          table.tryTakeOver(connection, key, owner)
              || (!table.exists(connection, key) && table.tryInsert(connection, key, owner));
      if (!won) {
        return null;
      }
      LockTable.Held row = table.readHeld(connection, key, owner);
      if (row == null || row.microsLeft() <= 0) {
        // Paused for a whole TTL between our own two statements: not acquired; free what is ours.
        table.release(connection, key.hash(), owner);
        return null;
      }
      long deadline = sent + Math.min(options.leaseTtl().toNanos(), row.microsLeft() * 1000);
      JdbcLease lease =
          new JdbcLease(
              this,
              key,
              owner,
              row.fencingToken(),
              row.sessionId(),
              connection,
              queued,
              deadline,
              options.leaseTtl());
      try {
        lease.startHeartbeat(held.heartbeats());
      } catch (RejectedExecutionException e) {
        // The service was closed while this attempt ran: give the row back, hold nothing.
        table.release(connection, key.hash(), owner);
        throw new IllegalStateException(
            "The JDBC lock service on "
                + options.redactedUrl()
                + " was closed while acquiring '"
                + key.key()
                + "'.",
            e);
      }
      held.add(lease);
      keep = true;
      LOG.debug("Acquired {}", lease);
      return lease;
    } catch (SQLException e) {
      if (dialect().isContention(e)) {
        return null;
      }
      broken = true;
      if (won) {
        releaseQuietly(key, owner);
      }
      throw e;
    } finally {
      if (!keep) {
        giveBack(connection, broken, queued ? key : null);
      }
    }
  }

  private JdbcDialect dialect() {
    return options.dialect();
  }

  /** Frees a row we may have won before the attempt failed; the TTL frees it otherwise. */
  private void releaseQuietly(LockKey key, String owner) {
    try (Connection connection = pool.getConnection()) {
      table.release(connection, key.hash(), owner);
    } catch (SQLException e) {
      LOG.warn(
          "Could not free '{}' after a failed acquire; it frees itself within {}: {}",
          key.key(),
          Durations.format(options.leaseTtl()),
          e.toString());
    }
  }

  /**
   * Releases {@code lease}'s row on its session, or on a fresh connection when it has none; then
   * the key's named lock, if the session holds it, so that the waiter it wakes finds the row free.
   */
  void release(JdbcLease lease, Connection session, boolean queued) throws IOException {
    LockKey key = LockKey.of(lease.key());
    boolean broken = false;
    try {
      Connection connection = session != null ? session : pool.getConnection();
      try {
        if (table.release(connection, key.hash(), lease.owner()) == 1) {
          LOG.debug("Released {}", lease);
        } else {
          LOG.debug("Released {}: the row had already expired and been taken over", lease);
        }
      } catch (SQLException e) {
        broken = true;
        throw e;
      } finally {
        giveBack(connection, broken, session != null && queued ? key : null);
      }
    } catch (SQLException e) {
      throw new IOException(
          "Could not confirm the release of '"
              + key.key()
              + "' on "
              + options.redactedUrl()
              + " (table "
              + table.name()
              + "): "
              + e.getMessage()
              + ". Nobody else's lock was touched; the row frees itself within "
              + Durations.format(options.leaseTtl())
              + ".",
          e);
    }
  }

  /**
   * Returns a connection to the pool after freeing the named lock of {@code queuedFor} (when not
   * {@code null}) on it; a connection that failed, or whose named lock could not be freed, is
   * evicted (closing it frees the named lock), never reused.
   */
  void giveBack(Connection connection, boolean broken, LockKey queuedFor) {
    if (!broken && queuedFor != null) {
      try {
        wake.release(connection, queuedFor);
      } catch (SQLException e) {
        LOG.debug(
            "Freeing the named lock of '{}' failed; evicting the connection: {}",
            queuedFor.key(),
            e.toString());
        broken = true;
      }
    }
    giveBack(connection, broken);
  }

  /** Returns a connection to the pool; a connection that failed is evicted, never reused. */
  void giveBack(Connection connection, boolean broken) {
    if (broken) {
      pool.evictConnection(connection);
      return;
    }
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.debug("Closing a pooled connection failed: {}", e.toString());
    }
  }

  void forget(JdbcLease lease) {
    held.remove(lease);
  }

  LockTable table() {
    return table;
  }

  /** A pooled connection, for tests and diagnostics. */
  Connection connection() throws SQLException {
    return pool.getConnection();
  }

  /**
   * The lease TTL: a dead or paused holder's row expires at most this long after its last renewal.
   */
  @Override
  public Duration holderDeathBound() {
    return options.leaseTtl();
  }

  /** Releases every held lease, stops the heartbeats and closes the pool. Idempotent. */
  @Override
  public void close() throws IOException {
    held.close(pool::close);
  }

  @Override
  public String toString() {
    return "JdbcLockService{" + options + "}";
  }

  private static String hostName() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "unknown-host";
    }
    host = host.replaceAll("[^A-Za-z0-9._-]", "_");
    return host.length() > 100 ? host.substring(0, 100) : host;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root + ")";
  }
}
