package dev.lockstep.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The grants the README promises are enough: SELECT, INSERT and UPDATE on a lock table created
 * beforehand; without CREATE, a missing table is reported with the fix.
 */
class JdbcLockGrantsTest {

  private static final String PASSWORD = "Lockstep-" + UUID.randomUUID();

  private final String table = TestDatabase.freshTable();
  private final String user = "lockstep_lim_" + UUID.randomUUID().toString().substring(0, 8);
  private TestDatabase database;

  @AfterEach
  void dropUserAndTable() throws SQLException {
    if (database == null) {
      return;
    }
    database.dropTable(table);
    try (Connection admin = database.admin();
        Statement statement = admin.createStatement()) {
      statement.execute(
          database == TestDatabase.POSTGRESQL
              ? "DROP ROLE IF EXISTS " + user
              : "DROP USER IF EXISTS '" + user + "'@'127.0.0.1'");
    }
  }

  private void createLimitedUserOnTable(TestDatabase db) throws Exception {
    database = db;
    // The table as the README's DDL makes it (here: by a client that may create).
    JdbcLockService.open(db.options(table)).close();
    try (Connection admin = db.admin();
        Statement statement = admin.createStatement()) {
      if (db == TestDatabase.POSTGRESQL) {
        statement.execute("CREATE ROLE " + user + " LOGIN PASSWORD '" + PASSWORD + "'");
        statement.execute("GRANT SELECT, INSERT, UPDATE ON " + table + " TO " + user);
      } else {
        statement.execute(
            "CREATE USER '" + user + "'@'127.0.0.1' IDENTIFIED BY '" + PASSWORD + "'");
        statement.execute(
            "GRANT SELECT, INSERT, UPDATE ON test." + table + " TO '" + user + "'@'127.0.0.1'");
      }
    }
  }

  private Map<String, String> limitedOptions(TestDatabase db, String lockTable) {
    Map<String, String> options = db.options(lockTable);
    options.put(JdbcLockOptions.USER, user);
    options.put(JdbcLockOptions.PASSWORD, PASSWORD);
    return options;
  }

  @ParameterizedTest
  @EnumSource(
      value = TestDatabase.class,
      names = {"MARIADB_CONNECTOR_J", "POSTGRESQL"})
  void selectInsertAndUpdateOnTheTableAreEnough(TestDatabase db) throws Exception {
    createLimitedUserOnTable(db);
    try (JdbcLockService service = JdbcLockService.open(limitedOptions(db, table))) {
      Lease first = service.acquire("db.t", Duration.ZERO).orElseThrow();
      first.ensureHeld();
      first.close();
      Lease second = service.acquire("db.t", Duration.ZERO).orElseThrow();
      assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
      second.close();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = TestDatabase.class,
      names = {"MARIADB_CONNECTOR_J", "POSTGRESQL"})
  void withoutCreateAMissingTableIsReportedWithTheFix(TestDatabase db) throws Exception {
    createLimitedUserOnTable(db);
    String missing = TestDatabase.freshTable();
    assertThatThrownBy(() -> JdbcLockService.open(limitedOptions(db, missing)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(missing)
        .hasMessageContaining("could not be created")
        .hasMessageContaining("Grant the lock user CREATE")
        .hasMessageNotContaining(PASSWORD);
  }
}
