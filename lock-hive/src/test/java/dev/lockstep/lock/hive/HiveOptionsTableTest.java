package dev.lockstep.lock.hive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.catalog.CatalogOptions;
import dev.lockstep.options.OptionsTable;
import dev.lockstep.options.UnknownOptionException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README table is the declared options; a typo fails alike from Java and from the catalog. */
class HiveOptionsTableTest {

  @Test
  void readmeTableIsCurrent() throws Exception {
    OptionsTable.verify(Path.of("README.md"), "lock-hive", HiveLockOptionSet.OPTIONS);
  }

  @Test
  void aMisspeltKeyGivenToTheFactoryNamesTheNearestKeyAsTheCatalogDoes() {
    Map<String, String> options =
        Map.of(
            "uri",
            "thrift://127.0.0.1:1",
            "lock.hive.pool-sizes",
            "2",
            "metastore.txn.timeout",
            "300s",
            "warehouse",
            "/tmp/w");
    UnknownOptionException direct = null;
    try {
      new HiveLockFactory().create(options);
    } catch (UnknownOptionException e) {
      direct = e;
    }
    assertThat(direct)
        .isNotNull()
        .hasMessageStartingWith(
            "Unknown option 'lock.hive.pool-sizes'." + " Did you mean 'lock.hive.pool-size'?");
    UnknownOptionException catalog = null;
    try {
      CatalogOptions.onClassPath(getClass().getClassLoader())
          .check(Map.of("uri", "thrift://127.0.0.1:1", "lock.hive.pool-sizes", "2"));
    } catch (UnknownOptionException e) {
      catalog = e;
    }
    assertThat(catalog).isNotNull().hasMessage(direct.getMessage());
  }
}
