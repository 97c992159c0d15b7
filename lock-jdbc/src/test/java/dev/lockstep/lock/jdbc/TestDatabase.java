package dev.lockstep.lock.jdbc;

import dev.lockstep.testing.TestTiming;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The machine's real database servers, each through the driver a user would pick. A server that
 * cannot be reached fails the test (the project's test script starts them).
 */
enum TestDatabase {
  /** MariaDB through MySQL Connector/J. */
  MARIADB_CONNECTOR_J("jdbc:mysql://127.0.0.1:3306/test", "root"),
  /** MariaDB through the MariaDB driver. */
  MARIADB_DRIVER("jdbc:mariadb://127.0.0.1:3306/test", "root"),
  /** PostgreSQL through its driver. */
  POSTGRESQL("jdbc:postgresql://127.0.0.1:5432/test", "postgres");

  /** The lease TTL the failure tests use: short, so that expiry is observed quickly. */
  static final Duration SHORT_TTL = Duration.ofSeconds(3);

  /** {@code lock-check-max-sleep} in the tests: the longest wait between acquire attempts. */
  static final Duration RETRY = Duration.ofMillis(200);

  private final String url;
  private final String user;

  TestDatabase(String url, String user) {
    this.url = url;
    this.user = user;
  }

  String url() {
    return url;
  }

  /** Slack for database round trips and JVM noise on top of a protocol bound (scaled). */
  static Duration slack() {
    return TestTiming.scaled(Duration.ofMillis(1500));
  }

  /** A lock table name no other test uses. */
  static String freshTable() {
    return "lockstep_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  /** Options of a JDBC lock on {@code table} with a short TTL and fast retries. */
  Map<String, String> options(String table) {
    Map<String, String> options = new HashMap<>();
    options.put("lock.enabled", "true");
    options.put("lock.type", "jdbc");
    options.put(JdbcLockOptions.URL, url);
    options.put(JdbcLockOptions.USER, user);
    options.put(JdbcLockOptions.TABLE, table);
    options.put(JdbcLockOptions.LEASE_TTL, SHORT_TTL.toMillis() + " ms");
    options.put("lock-check-max-sleep", RETRY.toMillis() + " ms");
    return options;
  }

  /** A plain connection outside any pool, as an operator's console. */
  Connection admin() throws SQLException {
    return DriverManager.getConnection(url, user, "");
  }

  /**
   * Kills a session server-side, as an operator would ({@code KILL} / pg_terminate_backend), and
   * returns once the server no longer lists it.
   */
  void killSession(long sessionId) throws SQLException {
    String kill = this == POSTGRESQL ? "SELECT pg_terminate_backend(?)" : "KILL " + sessionId;
    String listed =
        this == POSTGRESQL
            ? "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = ?"
            : "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ?";
    try (Connection admin = admin()) {
      try (PreparedStatement statement = admin.prepareStatement(kill)) {
        if (this == POSTGRESQL) {
          statement.setInt(1, (int) sessionId);
        }
        statement.execute();
      }
      long deadline = System.nanoTime() + TestTiming.scaled(Duration.ofSeconds(10)).toNanos();
      while (true) {
        try (PreparedStatement statement = admin.prepareStatement(listed)) {
          statement.setLong(1, sessionId);
          try (ResultSet rows = statement.executeQuery()) {
            rows.next();
            if (rows.getLong(1) == 0) {
              return;
            }
          }
        }
        if (System.nanoTime() > deadline) {
          throw new SQLException("Session " + sessionId + " still listed after the kill");
        }
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SQLException("interrupted", e);
        }
      }
    }
  }

  void dropTable(String table) throws SQLException {
    try (Connection admin = admin();
        Statement statement = admin.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS " + table);
    }
  }
}
