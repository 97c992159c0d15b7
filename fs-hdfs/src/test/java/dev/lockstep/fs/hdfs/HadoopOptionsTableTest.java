package dev.lockstep.fs.hdfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.catalog.CatalogOptions;
import dev.lockstep.fs.Path;
import dev.lockstep.options.OptionsTable;
import dev.lockstep.options.UnknownOptionException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README table is the declared options; a typo fails alike from Java and from the catalog. */
class HadoopOptionsTableTest {

  @Test
  void readmeTableIsCurrent() throws Exception {
    OptionsTable.verify(java.nio.file.Path.of("README.md"), "fs-hdfs", HadoopOptions.OPTIONS);
  }

  @Test
  void aMisspeltKeyGivenToTheStoreNamesTheNearestKeyAsTheCatalogDoes() {
    Map<String, String> options =
        Map.of(
            "fs.hdfs.atomic-renames",
            "true",
            "hadoop.dfs.replication",
            "1",
            "s3.endpoint",
            "http://elsewhere");
    Throwable direct =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> new HadoopFileIOLoader().load(Path.of("hdfs://127.0.0.1:1/w"), options));
    assertThat(direct)
        .isInstanceOf(UnknownOptionException.class)
        .hasMessageStartingWith(
            "Unknown option 'fs.hdfs.atomic-renames'. Did you mean" + " 'fs.hdfs.atomic-rename'?");
    assertThatThrownBy(
            () ->
                CatalogOptions.onClassPath(getClass().getClassLoader())
                    .check(Map.of("fs.hdfs.atomic-renames", "true", "hadoop.x", "y")))
        .hasMessage(direct.getMessage());
  }
}
