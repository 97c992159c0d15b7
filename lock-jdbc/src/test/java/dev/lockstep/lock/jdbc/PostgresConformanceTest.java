package dev.lockstep.lock.jdbc;

import dev.lockstep.conformance.ConformanceSuite;
import dev.lockstep.conformance.ConformanceTarget;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/** The whole conformance kit on the JDBC lock on PostgreSQL. */
class PostgresConformanceTest extends ConformanceSuite {

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
