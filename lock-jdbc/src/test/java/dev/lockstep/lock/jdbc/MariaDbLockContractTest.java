package dev.lockstep.lock.jdbc;

import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.LockContract;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/** The kit's lock contract on MariaDB through MySQL Connector/J. */
class MariaDbLockContractTest extends LockContract {

  private static final String TABLE = TestDatabase.freshTable();

  @TempDir static java.nio.file.Path root;

  @Override
  protected ConformanceTarget target() {
    return JdbcConformanceTargets.on(TestDatabase.MARIADB_CONNECTOR_J, TABLE, root);
  }

  @AfterAll
  static void dropTable() throws SQLException {
    TestDatabase.MARIADB_CONNECTOR_J.dropTable(TABLE);
  }
}
