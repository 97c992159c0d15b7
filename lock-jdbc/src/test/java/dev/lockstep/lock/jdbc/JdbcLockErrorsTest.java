package dev.lockstep.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Errors are errors: reported as exceptions that name the cause and the fix, never as a timeout.
 */
class JdbcLockErrorsTest {

  private final String table = TestDatabase.freshTable();
  private TestDatabase database;

  @AfterEach
  void drop() throws Exception {
    if (database != null) {
      database.dropTable(table);
    }
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aFailingDatabaseIsAnErrorNotATimeout(TestDatabase db) throws Exception {
    database = db;
    try (JdbcLockService service = JdbcLockService.open(db.options(table))) {
      service.acquire("db.t", Duration.ZERO).orElseThrow().close();
      db.dropTable(table); // an operator drops the lock table under a running client
      assertThatThrownBy(() -> service.acquire("db.t", Duration.ZERO))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(table)
          .hasMessageContaining("db.t");
    }
  }

  @Test
  void anExhaustedPoolNamesThePoolSize() throws Exception {
    database = TestDatabase.POSTGRESQL;
    Map<String, String> options = database.options(table);
    options.put(JdbcLockOptions.POOL_SIZE, "1");
    try (JdbcLockService service = JdbcLockService.open(options)) {
      Lease held = service.acquire("db.a", Duration.ZERO).orElseThrow();
      long began = System.nanoTime();
      assertThatThrownBy(() -> service.acquire("db.b", Duration.ZERO))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(JdbcLockOptions.POOL_SIZE)
          .hasMessageContaining("holds 1 leases");
      assertThat(Duration.ofNanos(System.nanoTime() - began))
          .as("waits at most the TTL for a connection")
          .isLessThan(TestDatabase.SHORT_TTL.plus(TestDatabase.slack()));
      assertThat(held.isHeld()).isTrue();
      held.close();
      service.acquire("db.b", Duration.ZERO).orElseThrow().close();
    }
  }

  @Test
  void anUnreachableDatabaseFailsAtOpenNamingTheUrl() {
    Map<String, String> options = TestDatabase.POSTGRESQL.options(table);
    options.put(JdbcLockOptions.URL, "jdbc:postgresql://127.0.0.1:1/test");
    assertThatThrownBy(() -> JdbcLockService.open(options))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("127.0.0.1:1")
        .hasMessageContaining(JdbcLockOptions.URL);
  }
}
