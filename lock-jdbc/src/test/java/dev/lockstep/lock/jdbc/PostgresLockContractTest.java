package dev.lockstep.lock.jdbc;

import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.LockContract;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/** The kit's lock contract on Postgres. */
class PostgresLockContractTest extends LockContract {

  private static final String TABLE = TestDatabase.freshTable();

  @TempDir static java.nio.file.Path root;

  @Override
  protected ConformanceTarget target() {
    return JdbcConformanceTargets.on(TestDatabase.POSTGRESQL, TABLE, root);
  }

  @AfterAll
  static void dropTable() throws SQLException {
    TestDatabase.POSTGRESQL.dropTable(TABLE);
  }
}
