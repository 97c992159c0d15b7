package dev.lockstep.lock.jdbc;

import static dev.lockstep.testing.UnknownOptions.catchUnknown;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.catalog.CatalogOptions;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.options.OptionsTable;
import dev.lockstep.options.UnknownOptionException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The README table is the declared options; a typo given to the factory created directly from Java
 * fails with the same did-you-mean message as the catalog-level check (the command line's).
 */
class JdbcOptionsTableTest {

  @Test
  void readmeTableIsCurrent() throws Exception {
    OptionsTable.verify(Path.of("README.md"), "lock-jdbc", JdbcLockOptions.OPTIONS);
  }

  @Test
  void aMisspeltKeyGivenToTheFactoryNamesTheNearestKeyAsTheCatalogDoes() {
    Map<String, String> options =
        Map.of(
            "lock.type",
            "jdbc",
            "lock.jdbc.url",
            "jdbc:mariadb://127.0.0.1:3306/test",
            "lock.jdbc.pool-sise",
            "4",
            "warehouse",
            "s3://b/w",
            "lock.zookeeper.connect-string",
            "h:1",
            "bucket",
            "4");
    UnknownOptionException direct =
        catchUnknown(() -> new JdbcCatalogLockFactory().create(options));
    assertThat(direct)
        .hasMessageStartingWith(
            "Unknown option 'lock.jdbc.pool-sise'. Did you mean" + " 'lock.jdbc.pool-size'?");
    UnknownOptionException discovered = catchUnknown(() -> LockServiceDiscovery.open(options));
    assertThat(discovered).hasMessage(direct.getMessage());
    UnknownOptionException catalog =
        catchUnknown(
            () ->
                CatalogOptions.onClassPath(getClass().getClassLoader())
                    .check(Map.of("lock.jdbc.pool-sise", "4")));
    assertThat(catalog).hasMessage(direct.getMessage());
  }

  @Test
  void driverPropertiesAndOtherNamespacesPassAndBadValuesNameTheKey() {
    JdbcLockOptions parsed =
        JdbcLockOptions.from(
            Map.of(
                "lock.jdbc.url",
                "jdbc:postgresql://db/x",
                "lock.jdbc.property.ssl",
                "true",
                "s3.whatever",
                "1"));
    assertThat(parsed.driverProperties()).containsEntry("ssl", "true");
    assertThatThrownBy(
            () ->
                JdbcLockOptions.from(
                    Map.of(
                        "lock.jdbc.url",
                        "jdbc:postgresql://db/x",
                        "lock.jdbc.lease-ttl",
                        "500 ms")))
        .hasMessage("Option 'lock.jdbc.lease-ttl' is 500 ms; it must be at least 1 s.");
  }
}
