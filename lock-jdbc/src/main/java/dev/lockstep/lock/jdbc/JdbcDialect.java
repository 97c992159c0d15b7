package dev.lockstep.lock.jdbc;

import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL that differs between the supported databases, chosen by the JDBC URL prefix.
 *
 * <ul>
 *   <li>{@code jdbc:mysql:} MySQL Connector/J, against MySQL or MariaDB.
 *   <li>{@code jdbc:mariadb:} the MariaDB driver, against MariaDB or MySQL.
 *   <li>{@code jdbc:postgresql:} the PostgreSQL driver.
 * </ul>
 *
 * <p>Time is always the database's: {@link #nowMicros()} is the statement's start time in
 * microseconds since the epoch (UTC), the same value everywhere it appears in one statement.
 */
public enum JdbcDialect {
  MYSQL("jdbc:mysql:", "com.mysql.cj.jdbc.Driver", Family.MYSQL),
  MARIADB("jdbc:mariadb:", "org.mariadb.jdbc.Driver", Family.MYSQL),
  POSTGRESQL("jdbc:postgresql:", "org.postgresql.Driver", Family.POSTGRESQL);

  private enum Family {
    MYSQL,
    POSTGRESQL
  }

  private final String urlPrefix;
  private final String driverClassName;
  private final Family family;

  JdbcDialect(String urlPrefix, String driverClassName, Family family) {
    this.urlPrefix = urlPrefix;
    this.driverClassName = driverClassName;
    this.family = family;
  }

  /**
   * The dialect of a JDBC URL.
   *
   * @throws IllegalArgumentException for any other URL, listing the supported prefixes
   */
  public static JdbcDialect fromUrl(String url) {
    String lower = url.trim().toLowerCase(Locale.ROOT);
    for (JdbcDialect dialect : values()) {
      if (lower.startsWith(dialect.urlPrefix)) {
        return dialect;
      }
    }
    throw new IllegalArgumentException(
        "Option '"
            + JdbcLockOptions.URL
            + "' is '"
            + JdbcLockOptions.redact(url)
            + "', which names no supported database. Write a URL starting"
            + " with jdbc:mysql: (MySQL Connector/J, MySQL or MariaDB), jdbc:mariadb: (MariaDB driver) or"
            + " jdbc:postgresql: (PostgreSQL).");
  }

  /** The driver class loaded for this dialect. */
  public String driverClassName() {
    return driverClassName;
  }

  /** The database's current time (statement start) in microseconds since the epoch, as SQL. */
  String nowMicros() {
    return family == Family.MYSQL
        ? "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))"
        : "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000 AS BIGINT)";
  }

  /** Whether this is MySQL or MariaDB (named locks by {@code GET_LOCK}), else PostgreSQL. */
  boolean isMySqlFamily() {
    return family == Family.MYSQL;
  }

  /**
   * The server-side id of the current session, as SQL: what {@code KILL} or pg_terminate_backend
   * take.
   */
  String sessionId() {
    return family == Family.MYSQL ? "CONNECTION_ID()" : "pg_backend_pid()";
  }

  /**
   * A query answering one row, one column: 1 when the (optionally schema-qualified) table exists,
   * else 0. Asked instead of probing the table, which would log a driver error on every first
   * start.
   */
  String tableExists(String table) {
    if (family == Family.MYSQL) {
      int dot = table.indexOf('.');
      String schema = dot < 0 ? "DATABASE()" : "'" + table.substring(0, dot) + "'";
      String name = dot < 0 ? table : table.substring(dot + 1);
      return "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = "
          + schema
          + " AND table_name = '"
          + name
          + "'";
    }
    return "SELECT CASE WHEN to_regclass('" + table + "') IS NULL THEN 0 ELSE 1 END";
  }

  /**
   * CREATE TABLE for the lock table; see the module README for the columns. On MySQL and MariaDB
   * the owner id is VARBINARY so that it compares byte for byte (their text collations ignore
   * trailing spaces).
   */
  String createTable(String table) {
    if (family == Family.MYSQL) {
      return "CREATE TABLE IF NOT EXISTS "
          + table
          + " ("
          + "lock_hash CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL, "
          + "lock_key TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, "
          + "owner_id VARBINARY(255) NULL, "
          + "fencing_token BIGINT NOT NULL, "
          + "expires_at_us BIGINT NOT NULL, "
          + "acquired_at_us BIGINT NOT NULL, "
          + "PRIMARY KEY (lock_hash)) ENGINE=InnoDB";
    }
    return "CREATE TABLE IF NOT EXISTS "
        + table
        + " ("
        + "lock_hash CHAR(64) NOT NULL PRIMARY KEY, "
        + "lock_key TEXT NOT NULL, "
        + "owner_id VARCHAR(255) NULL, "
        + "fencing_token BIGINT NOT NULL, "
        + "expires_at_us BIGINT NOT NULL, "
        + "acquired_at_us BIGINT NOT NULL)";
  }

  /**
   * INSERT of a new row. MySQL reports a duplicate key as an error ({@link #isDuplicateKey}); a
   * plain INSERT is used there rather than INSERT IGNORE, which would also turn truncation into a
   * warning. PostgreSQL answers a duplicate with zero rows, which keeps its server log clean.
   */
  String insert(String table) {
    String now = nowMicros();
    String sql =
        "INSERT INTO "
            + table
            + " (lock_hash, lock_key, owner_id, fencing_token,"
            + " expires_at_us, acquired_at_us) VALUES (?, ?, ?, "
            + now
            + ", "
            + now
            + " + ?, "
            + now
            + ")";
    return family == Family.MYSQL ? sql : sql + " ON CONFLICT (lock_hash) DO NOTHING";
  }

  /** Whether {@code e} is a unique-key violation. */
  boolean isDuplicateKey(SQLException e) {
    if (family == Family.MYSQL) {
      return e.getErrorCode() == 1062 || e.getErrorCode() == 1586;
    }
    return "23505".equals(e.getSQLState());
  }

  /**
   * Whether {@code e} is a deadlock, serialization failure or lock-wait timeout: contention, retry.
   */
  boolean isContention(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state)
        || "40P01".equals(state)
        || "55P03".equals(state)
        || (family == Family.MYSQL && (e.getErrorCode() == 1205 || e.getErrorCode() == 1213));
  }
}
