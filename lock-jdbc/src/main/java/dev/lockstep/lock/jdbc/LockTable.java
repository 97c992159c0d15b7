package dev.lockstep.lock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The statements on the lock table. One row per key ever locked; the row is never deleted, so its
 * {@code fencing_token} keeps counting across releases and takeovers. Every statement binds its
 * values (the table name is the only text put into SQL, and it is validated as an identifier);
 * every time is the database's ({@link JdbcDialect#nowMicros()}); every statement runs alone in
 * auto-commit.
 *
 * <p>A row is <em>free</em> when {@code owner_id IS NULL} (released) or {@code expires_at_us <=
 * now} (its holder stopped renewing). Ownership is the pair (key, owner id); an owner id is unique
 * per acquisition, so a holder from an earlier acquisition can never touch a later one's row.
 */
final class LockTable {

  private final JdbcDialect dialect;
  private final String table;
  private final long ttlMicros;
  private final int queryTimeoutSeconds;
  private final String takeOver;
  private final String insert;
  private final String readHeld;
  private final String renew;
  private final String release;
  private final String readRow;
  private final String exists;

  /**
   * @param queryTimeout the longest one statement may run before the driver cancels it (rounded up
   *     to whole seconds, as JDBC counts)
   */
  LockTable(JdbcDialect dialect, String table, Duration ttl, Duration queryTimeout) {
    this.dialect = dialect;
    this.table = table;
    this.ttlMicros = ttl.toNanos() / 1000;
    this.queryTimeoutSeconds = (int) Math.max(1, (queryTimeout.toMillis() + 999) / 1000);
    String now = dialect.nowMicros();
    this.takeOver =
        "UPDATE "
            + table
            + " SET owner_id = ?, fencing_token = fencing_token + 1,"
            + " expires_at_us = "
            + now
            + " + ?, acquired_at_us = "
            + now
            + " WHERE lock_hash = ? AND (owner_id IS NULL OR expires_at_us <= "
            + now
            + ")";
    this.insert = dialect.insert(table);
    this.readHeld =
        "SELECT fencing_token, expires_at_us - "
            + now
            + ", "
            + dialect.sessionId()
            + " FROM "
            + table
            + " WHERE lock_hash = ? AND owner_id = ?";
    this.renew =
        "UPDATE "
            + table
            + " SET expires_at_us = "
            + now
            + " + ?"
            + " WHERE lock_hash = ? AND owner_id = ? AND expires_at_us > "
            + now;
    this.release =
        "UPDATE "
            + table
            + " SET owner_id = NULL, expires_at_us = "
            + now
            + " WHERE lock_hash = ? AND owner_id = ?";
    this.exists = "SELECT 1 FROM " + table + " WHERE lock_hash = ?";
    this.readRow =
        "SELECT lock_key, owner_id, fencing_token, expires_at_us, acquired_at_us, "
            + now
            + " FROM "
            + table
            + " WHERE lock_hash = ?";
  }

  String name() {
    return table;
  }

  /** The statement timeout, in whole seconds as JDBC counts. */
  int queryTimeoutSeconds() {
    return queryTimeoutSeconds;
  }

  /**
   * Creates the table when it is missing. Before: any. After: the table exists with the expected
   * columns. Two clients racing to create it both succeed.
   *
   * @throws SQLException when the table is missing and cannot be created (grant CREATE, or create
   *     it as the README shows), or exists without the expected columns
   */
  void ensureExists(Connection connection) throws SQLException {
    String probe =
        "SELECT lock_hash, lock_key, owner_id, fencing_token, expires_at_us, acquired_at_us"
            + " FROM "
            + table
            + " WHERE 1 = 0";
    boolean exists;
    try (PreparedStatement statement = prepare(connection, dialect.tableExists(table));
        ResultSet rows = statement.executeQuery()) {
      exists = rows.next() && rows.getLong(1) > 0;
    }
    try {
      if (!exists) {
        execute(connection, dialect.createTable(table));
      }
    } catch (SQLException createFailed) {
      // Another client may have created it at the same moment (PostgreSQL then reports a
      // duplicate).
      try {
        execute(connection, probe);
        return;
      } catch (SQLException stillMissing) {
        createFailed.addSuppressed(stillMissing);
        throw new SQLException(
            "The lock table '"
                + table
                + "' is missing and could not be created: "
                + createFailed.getMessage()
                + ". Grant the lock user CREATE, or create the table as the"
                + " lock-jdbc README shows.",
            createFailed.getSQLState(),
            createFailed);
      }
    }
    try {
      execute(connection, probe);
    } catch (SQLException e) {
      throw new SQLException(
          "The table '"
              + table
              + "' exists but is not a Lockstep lock table (it"
              + " lacks the expected columns): "
              + e.getMessage()
              + ". Choose another '"
              + JdbcLockOptions.TABLE
              + "'.",
          e.getSQLState(),
          e);
    }
  }

  /**
   * Takes the row of {@code key} for {@code owner} when it is free, adding one to its fencing
   * token. One statement: the database locks the row, so of racing callers at most one sees it
   * free.
   *
   * @return true when taken; false when the row is missing or held by a live lease
   */
  boolean tryTakeOver(Connection connection, LockKey key, String owner) throws SQLException {
    try (PreparedStatement statement = prepare(connection, takeOver)) {
      statement.setString(1, owner);
      statement.setLong(2, ttlMicros);
      statement.setString(3, key.hash());
      return statement.executeUpdate() == 1;
    }
  }

  /** Whether {@code key} has a row (held or free). */
  boolean exists(Connection connection, LockKey key) throws SQLException {
    try (PreparedStatement statement = prepare(connection, exists)) {
      statement.setString(1, key.hash());
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next();
      }
    }
  }

  /**
   * Inserts the row of a key never locked before, held by {@code owner}. Its fencing token starts
   * at the database clock in microseconds, so even a row deleted by hand restarts above every token
   * it ever handed out (each acquisition takes far longer than a microsecond).
   *
   * @return true when inserted; false when the row exists (someone else inserted it first)
   */
  boolean tryInsert(Connection connection, LockKey key, String owner) throws SQLException {
    try (PreparedStatement statement = prepare(connection, insert)) {
      statement.setString(1, key.hash());
      statement.setString(2, key.key());
      statement.setString(3, owner);
      statement.setLong(4, ttlMicros);
      return statement.executeUpdate() == 1;
    } catch (SQLException e) {
      if (dialect.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /** What the holder reads right after acquiring. */
  record Held(long fencingToken, long microsLeft, long sessionId) {}

  /** The token and time left of {@code owner}'s row, or {@code null} when the row is not theirs. */
  Held readHeld(Connection connection, LockKey key, String owner) throws SQLException {
    try (PreparedStatement statement = prepare(connection, readHeld)) {
      statement.setString(1, key.hash());
      statement.setString(2, owner);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? new Held(rows.getLong(1), rows.getLong(2), rows.getLong(3)) : null;
      }
    }
  }

  /**
   * Extends {@code owner}'s unexpired row to the database's now plus the TTL.
   *
   * @return 1 when renewed; 0 when the row is no longer {@code owner}'s or has expired (nothing
   *     changed)
   */
  int renew(Connection connection, String keyHash, String owner) throws SQLException {
    try (PreparedStatement statement = prepare(connection, renew)) {
      statement.setLong(1, ttlMicros);
      statement.setString(2, keyHash);
      statement.setString(3, owner);
      return statement.executeUpdate();
    }
  }

  /**
   * Frees {@code owner}'s row (the fencing token stays).
   *
   * @return 1 when freed; 0 when the row is not {@code owner}'s (nothing changed)
   */
  int release(Connection connection, String keyHash, String owner) throws SQLException {
    try (PreparedStatement statement = prepare(connection, release)) {
      statement.setString(1, keyHash);
      statement.setString(2, owner);
      return statement.executeUpdate();
    }
  }

  /** A whole row with the database's now, for diagnostics and tests. */
  record Row(
      String key,
      String owner,
      long fencingToken,
      long expiresAtMicros,
      long acquiredAtMicros,
      long nowMicros) {}

  /** The row of a key, or {@code null} when the key was never locked. */
  Row read(Connection connection, LockKey key) throws SQLException {
    try (PreparedStatement statement = prepare(connection, readRow)) {
      statement.setString(1, key.hash());
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next()
            ? new Row(
                rows.getString(1),
                rows.getString(2),
                rows.getLong(3),
                rows.getLong(4),
                rows.getLong(5),
                rows.getLong(6))
            : null;
      }
    }
  }

  /** The server-side id of the connection's session. */
  long sessionId(Connection connection) throws SQLException {
    try (PreparedStatement statement = prepare(connection, "SELECT " + dialect.sessionId());
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private PreparedStatement prepare(Connection connection, String sql) throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    statement.setQueryTimeout(queryTimeoutSeconds);
    return statement;
  }

  private void execute(Connection connection, String sql) throws SQLException {
    try (PreparedStatement statement = prepare(connection, sql)) {
      statement.execute();
    }
  }
}
