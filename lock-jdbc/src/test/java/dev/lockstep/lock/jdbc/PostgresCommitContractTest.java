package dev.lockstep.lock.jdbc;

import dev.lockstep.conformance.CommitContract;
import dev.lockstep.conformance.ConformanceTarget;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/** The kit's commit contract on Postgres. */
class PostgresCommitContractTest extends CommitContract {

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
