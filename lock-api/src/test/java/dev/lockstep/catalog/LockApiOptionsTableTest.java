package dev.lockstep.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.options.OptionsTable;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's options table is generated from the declarations; a stale table fails here. */
class LockApiOptionsTableTest {

  @Test
  void readmeTableIsCurrent() throws Exception {
    OptionsTable.verify(Path.of("README.md"), "lock-api", LockApiOptions.OPTIONS);
  }

  @Test
  void theClassPathCatalogHoldsTheCoreOptionsAndTheLocalStore() {
    var catalog = CatalogOptions.onClassPath(getClass().getClassLoader());
    assertThat(catalog.keys()).contains("lock.enabled", "commit.strategy", "commit.fencing-scope");
    assertThat(catalog.knows("fs.scheme-alias.jfs")).isTrue();
  }
}
