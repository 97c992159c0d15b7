package dev.lockstep.fs.oss;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.catalog.CatalogOptions;
import dev.lockstep.fs.Path;
import dev.lockstep.options.OptionsTable;
import dev.lockstep.options.UnknownOptionException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README table is the declared options; a typo fails alike from Java and from the catalog. */
class OssOptionsTableTest {

  @Test
  void readmeTableIsCurrent() throws Exception {
    OptionsTable.verify(java.nio.file.Path.of("README.md"), "fs-oss", OssOptions.OPTIONS);
  }

  @Test
  void aMisspeltKeyGivenToTheStoreNamesTheNearestKeyAsTheCatalogDoes() {
    Map<String, String> options =
        Map.of(
            "fs.oss.endpoint",
            "http://127.0.0.1:1",
            "fs.oss.accessKeyId",
            "id",
            "fs.oss.accessKeySecret",
            "secret",
            "fs.oss.paging.maximun",
            "10",
            "s3.endpoint",
            "http://elsewhere",
            "lock.enabled",
            "true");
    Throwable direct =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> new OssFileIOLoader().load(Path.of("oss://b/w"), options));
    assertThat(direct)
        .isInstanceOf(UnknownOptionException.class)
        .hasMessageStartingWith(
            "Unknown option 'fs.oss.paging.maximun'. Did you mean" + " 'fs.oss.paging.maximum'?");
    assertThatThrownBy(
            () ->
                CatalogOptions.onClassPath(getClass().getClassLoader())
                    .check(Map.of("fs.oss.paging.maximun", "10")))
        .hasMessage(direct.getMessage());
  }

  @Test
  void sizesAcceptBothSpellings() {
    Map<String, String> base =
        Map.of(
            "fs.oss.endpoint",
            "http://h",
            "fs.oss.accessKeyId",
            "i",
            "fs.oss.accessKeySecret",
            "s");
    var spaced = new java.util.HashMap<>(base);
    spaced.put("fs.oss.multipart.upload.size", "16 mb");
    var joined = new java.util.HashMap<>(base);
    joined.put("fs.oss.multipart.upload.size", "16MiB");
    assertThat(OssOptions.from(spaced).partSize())
        .isEqualTo(OssOptions.from(joined).partSize())
        .isEqualTo(16L << 20);
  }
}
