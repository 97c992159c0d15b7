package dev.lockstep.fs.s3;

import static dev.lockstep.testing.UnknownOptions.catchUnknown;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.catalog.CatalogOptions;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.options.OptionsTable;
import dev.lockstep.options.UnknownOptionException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The README table is the declared options; a typo given to the store created directly from Java
 * fails with the same did-you-mean message as the catalog-level check (the command line's), before
 * any request is sent.
 */
class S3OptionsTableTest {

  @Test
  void readmeTableIsCurrent() throws Exception {
    OptionsTable.verify(java.nio.file.Path.of("README.md"), "fs-s3", S3Options.OPTIONS);
  }

  @Test
  void aMisspeltKeyGivenToTheStoreNamesTheNearestKeyAsTheCatalogDoes() {
    Map<String, String> options =
        Map.of(
            "s3.endpoint",
            "http://127.0.0.1:1",
            "s3.path-style-acess",
            "true",
            "lock.enabled",
            "true",
            "lock.zookeeper.connect-string",
            "h:1",
            "warehouse",
            "s3://b/w");
    UnknownOptionException direct =
        catchUnknown(() -> new S3FileIOLoader().load(Path.of("s3://b/w"), options));
    assertThat(direct)
        .hasMessageStartingWith(
            "Unknown option 's3.path-style-acess'. Did you mean" + " 's3.path-style-access'?");
    assertThat(catchUnknown(() -> FileIODiscovery.open(Path.of("s3a://b/w"), options)))
        .hasMessage(direct.getMessage());
    assertThat(
            catchUnknown(
                () ->
                    CatalogOptions.onClassPath(getClass().getClassLoader())
                        .check(Map.of("s3.path-style-acess", "true"))))
        .hasMessage(direct.getMessage());
  }

  @Test
  void sizesAcceptBothSpellings() {
    assertThat(S3Options.from(Map.of("s3.multipart.part-size", "16 mb")).multipartPartSize())
        .isEqualTo(S3Options.from(Map.of("s3.multipart.part-size", "16MiB")).multipartPartSize())
        .isEqualTo(16L << 20);
  }
}
