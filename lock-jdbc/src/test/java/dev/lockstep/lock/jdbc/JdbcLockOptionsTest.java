package dev.lockstep.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Parsing and validation of the {@code lock.jdbc.*} options, and how bad ones are reported. */
class JdbcLockOptionsTest {

  private static final String SECRET = "s3cr3t-Pa55";

  private static Map<String, String> options(String... pairs) {
    Map<String, String> options = new HashMap<>();
    options.put(JdbcLockOptions.URL, "jdbc:mariadb://db:3306/locks");
    for (int i = 0; i < pairs.length; i += 2) {
      options.put(pairs[i], pairs[i + 1]);
    }
    return options;
  }

  @Test
  void defaultsAndDialects() {
    JdbcLockOptions parsed = JdbcLockOptions.from(options());
    assertThat(parsed.table()).isEqualTo("lockstep_locks");
    assertThat(parsed.leaseTtl()).isEqualTo(Duration.ofSeconds(60));
    assertThat(parsed.poolSize()).isEqualTo(10);
    assertThat(parsed.user()).isNull();
    assertThat(parsed.lock().checkMaxSleep()).isEqualTo(Duration.ofSeconds(8));
    assertThat(parsed.dialect()).isEqualTo(JdbcDialect.MARIADB);
    assertThat(JdbcDialect.fromUrl("jdbc:mysql://db/locks")).isEqualTo(JdbcDialect.MYSQL);
    assertThat(JdbcDialect.fromUrl("JDBC:PostgreSQL://db/locks")).isEqualTo(JdbcDialect.POSTGRESQL);
    JdbcLockOptions custom =
        JdbcLockOptions.from(
            options(
                JdbcLockOptions.LEASE_TTL,
                "90 s",
                JdbcLockOptions.POOL_SIZE,
                "3",
                JdbcLockOptions.TABLE,
                "ops.locks",
                "lock.jdbc.property.sslMode",
                "verify-full"));
    assertThat(custom.leaseTtl()).isEqualTo(Duration.ofSeconds(90));
    assertThat(custom.poolSize()).isEqualTo(3);
    assertThat(custom.table()).isEqualTo("ops.locks");
    assertThat(custom.driverProperties()).containsEntry("sslMode", "verify-full");
  }

  @Test
  void badValuesNameTheKeyAndTheFix() {
    assertThatThrownBy(() -> JdbcLockOptions.from(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(JdbcLockOptions.URL);
    assertThatThrownBy(() -> JdbcLockOptions.from(options(JdbcLockOptions.URL, "jdbc:oracle:x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:postgresql:");
    for (String table :
        new String[] {
          "locks; DROP TABLE x", "a.b.c", "1locks", "lo`cks", "lo\"cks", "", "x".repeat(64), "täble"
        }) {
      assertThatThrownBy(() -> JdbcLockOptions.from(options(JdbcLockOptions.TABLE, table)))
          .as("table %s", table)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(JdbcLockOptions.TABLE);
    }
    assertThatThrownBy(() -> JdbcLockOptions.from(options(JdbcLockOptions.LEASE_TTL, "500 ms")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1 s");
    assertThatThrownBy(() -> JdbcLockOptions.from(options(JdbcLockOptions.LEASE_TTL, "soon")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(JdbcLockOptions.LEASE_TTL);
    assertThatThrownBy(() -> JdbcLockOptions.from(options(JdbcLockOptions.POOL_SIZE, "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(JdbcLockOptions.POOL_SIZE);
    assertThatThrownBy(() -> JdbcLockOptions.from(options("lock.jdbc.lease-tll", "5 s")))
        .as("a typo is not ignored")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock.jdbc.lease-tll")
        .hasMessageContaining(JdbcLockOptions.LEASE_TTL);
  }

  @Test
  void secretsAreNeverPrinted() {
    JdbcLockOptions parsed =
        JdbcLockOptions.from(
            options(
                JdbcLockOptions.PASSWORD,
                SECRET,
                JdbcLockOptions.URL,
                "jdbc:postgresql://u:"
                    + SECRET
                    + "@db/locks?user=u&password="
                    + SECRET
                    + "&ssl=true",
                "lock.jdbc.property.sslpassword",
                SECRET));
    assertThat(parsed.toString()).doesNotContain(SECRET).contains("ssl=true");
    assertThat(parsed.redactedUrl()).doesNotContain(SECRET).contains("db/locks");
    assertThatThrownBy(
            () ->
                JdbcLockOptions.from(
                    options(JdbcLockOptions.URL, "jdbc:db2://h/x;password=" + SECRET)))
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void theFactoryIsFoundAsJdbc() {
    assertThat(LockServiceDiscovery.factories(getClass().getClassLoader()))
        .containsKey(JdbcCatalogLockFactory.IDENTIFIER)
        .hasEntrySatisfying("jdbc", f -> assertThat(f).isInstanceOf(JdbcCatalogLockFactory.class));
  }

  @Test
  void aDatabaseThatRefusesTheLoginFailsFastWithoutShowingThePassword() {
    Map<String, String> options = TestDatabase.MARIADB_CONNECTOR_J.options("lockstep_unused");
    options.put(JdbcLockOptions.USER, "lockstep_no_such_user");
    options.put(JdbcLockOptions.PASSWORD, SECRET);
    long began = System.nanoTime();
    assertThatThrownBy(() -> LockServiceDiscovery.open(options))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("127.0.0.1:3306")
        .hasMessageContaining("lockstep_no_such_user")
        .hasMessageContaining(JdbcLockOptions.PASSWORD)
        .hasMessageNotContaining(SECRET);
    assertThat(Duration.ofNanos(System.nanoTime() - began))
        .isLessThan(TestTiming.scaled(Duration.ofSeconds(15)));
  }
}
