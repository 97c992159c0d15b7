package dev.lockstep.lock.jdbc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;

/**
 * The database's own named lock that waiters for a key queue on, so that a release wakes the next
 * waiter at once instead of at its next poll: {@code GET_LOCK} / {@code RELEASE_LOCK} on MySQL and
 * MariaDB, a session-level {@code pg_advisory_lock} / {@code pg_advisory_unlock} on PostgreSQL.
 *
 * <p>It only orders and wakes waiters; it never decides ownership. The lock table's row does: a
 * waiter that gets the named lock still has to take the row over, and a holder keeps the named lock
 * on its lease session only as a signal to the others. So a named lock lost with its session, one
 * taken by a client that does not use it, or two keys sharing a name (the name is a hash) can make
 * a waiter wait longer, never let two holders win.
 *
 * <p>Both databases keep these locks per session and free them when the session ends (a killed or
 * evicted connection frees them with it). A connection goes back to the pool only after {@link
 * #release} succeeded on it; otherwise it is evicted.
 */
final class WakeLock {

  private final JdbcDialect dialect;
  private final String table;
  private final int queryTimeoutSeconds;

  WakeLock(JdbcDialect dialect, String table, int queryTimeoutSeconds) {
    this.dialect = dialect;
    this.table = table;
    this.queryTimeoutSeconds = queryTimeoutSeconds;
  }

  /**
   * Waits up to {@code waitNanos} for the named lock of {@code key} on {@code connection}.
   *
   * @return true when this session now holds it (call {@link #release} before the connection goes
   *     back to the pool); false when someone else still held it at the end of the wait
   */
  boolean await(Connection connection, LockKey key, long waitNanos) throws SQLException {
    if (dialect.isMySqlFamily()) {
      try (PreparedStatement statement = prepare(connection, "SELECT GET_LOCK(?, ?)")) {
        statement.setString(1, mySqlName(key));
        statement.setDouble(2, Math.max(0, waitNanos) / 1e9);
        try (ResultSet rows = statement.executeQuery()) {
          rows.next();
          return rows.getInt(1) == 1;
        }
      }
    }
    // lock_timeout bounds the wait (0 would mean forever, so at least 1 ms); a timeout is 55P03.
    long millis = Math.max(1, waitNanos / 1_000_000);
    setLockTimeout(connection, millis + "ms");
    try (PreparedStatement statement = prepare(connection, "SELECT pg_advisory_lock(?)")) {
      statement.setLong(1, postgresKey(key));
      statement.executeQuery().close();
      return true;
    } catch (SQLException e) {
      if ("55P03".equals(e.getSQLState())) {
        return false;
      }
      throw e;
    } finally {
      setLockTimeout(connection, "0");
    }
  }

  /** Frees the named lock of {@code key} that this session holds. */
  void release(Connection connection, LockKey key) throws SQLException {
    String sql =
        dialect.isMySqlFamily() ? "SELECT RELEASE_LOCK(?)" : "SELECT pg_advisory_unlock(?)";
    try (PreparedStatement statement = prepare(connection, sql)) {
      if (dialect.isMySqlFamily()) {
        statement.setString(1, mySqlName(key));
      } else {
        statement.setLong(1, postgresKey(key));
      }
      statement.executeQuery().close();
    }
  }

  private void setLockTimeout(Connection connection, String value) throws SQLException {
    try (PreparedStatement statement =
        prepare(connection, "SELECT set_config('lock_timeout', ?, false)")) {
      statement.setString(1, value);
      statement.executeQuery().close();
    }
  }

  /**
   * MySQL and MariaDB lock names are at most 64 characters and server-wide: table and key hashed.
   */
  private String mySqlName(LockKey key) {
    return "lockstep:" + HexFormat.of().formatHex(digest(key), 0, 24);
  }

  /** PostgreSQL advisory locks take a 64-bit key, per database: table and key hashed. */
  private long postgresKey(LockKey key) {
    return ByteBuffer.wrap(digest(key)).getLong();
  }

  private byte[] digest(LockKey key) {
    try {
      return MessageDigest.getInstance("SHA-256")
          .digest((table + "\n" + key.hash()).getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private PreparedStatement prepare(Connection connection, String sql) throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    statement.setQueryTimeout(queryTimeoutSeconds);
    return statement;
  }
}
