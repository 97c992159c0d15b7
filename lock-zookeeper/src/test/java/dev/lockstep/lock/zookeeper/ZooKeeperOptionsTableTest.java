package dev.lockstep.lock.zookeeper;

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
class ZooKeeperOptionsTableTest {

  @Test
  void readmeTableIsCurrent() throws Exception {
    OptionsTable.verify(Path.of("README.md"), "lock-zookeeper", ZooKeeperLockOptions.OPTIONS);
  }

  @Test
  void aMisspeltKeyGivenToTheFactoryNamesTheNearestKeyAsTheCatalogDoes() {
    Map<String, String> options =
        Map.of(
            "lock.type",
            "zookeeper",
            "lock.zookeeper.connect-string",
            "127.0.0.1:1",
            "lock.zookeeper.sesion-timeout",
            "5 s",
            "warehouse",
            "s3://b/w",
            "s3.endpoint",
            "http://x",
            "bucket",
            "4");
    UnknownOptionException direct = catchUnknown(() -> new ZooKeeperLockFactory().create(options));
    assertThat(direct)
        .hasMessageStartingWith(
            "Unknown option 'lock.zookeeper.sesion-timeout'. Did"
                + " you mean 'lock.zookeeper.session-timeout'?");
    UnknownOptionException discovered = catchUnknown(() -> LockServiceDiscovery.open(options));
    assertThat(discovered).hasMessage(direct.getMessage());
    UnknownOptionException catalog =
        catchUnknown(
            () ->
                CatalogOptions.onClassPath(getClass().getClassLoader())
                    .check(Map.of("lock.zookeeper.sesion-timeout", "5 s")));
    assertThat(catalog).hasMessage(direct.getMessage());
  }

  @Test
  void keysOfOtherNamespacesAreIgnored() {
    ZooKeeperLockOptions parsed =
        ZooKeeperLockOptions.from(
            Map.of(
                "lock.zookeeper.connect-string",
                "h:1",
                "lock.jdbc.url",
                "jdbc:x",
                "s3.whatever",
                "1",
                "paimon.something",
                "x"));
    assertThat(parsed.connectString()).isEqualTo("h:1");
    assertThatThrownBy(
            () ->
                ZooKeeperLockOptions.from(
                    Map.of(
                        "lock.zookeeper.connect-string",
                        "h:1",
                        "lock.zookeeper.session-timeout",
                        "0 s")))
        .hasMessage("Option 'lock.zookeeper.session-timeout' is 0 ms; it must be positive.");
  }
}
