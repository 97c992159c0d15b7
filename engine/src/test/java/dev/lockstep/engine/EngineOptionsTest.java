package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.catalog.CatalogOptions;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.table.EngineOptions;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.options.OptionsTable;
import dev.lockstep.options.UnknownOptionException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's options: the README table is the declarations, and an embedded engine refuses a
 * misspelt key with the same did-you-mean message as the command line (the catalog-level check over
 * the class path) instead of ignoring it.
 */
class EngineOptionsTest {

  @TempDir java.nio.file.Path dir;

  @Test
  void readmeTableIsCurrent() throws Exception {
    OptionsTable.verify(java.nio.file.Path.of("README.md"), "engine", EngineOptions.OPTIONS);
  }

  @Test
  void anEmbeddedCatalogRefusesAMisspeltKeyAsTheCatalogCheckDoes() {
    Map<String, String> options =
        Map.of(
            "lock.enabled",
            "false",
            "commit.strategy",
            "auto",
            "num-sorted-run.compaction-triger",
            "3");
    Throwable embedded =
        org.assertj.core.api.Assertions.catchThrowable(
            () ->
                new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toUri().toString()), options));
    assertThat(embedded)
        .isInstanceOf(UnknownOptionException.class)
        .hasMessageStartingWith(
            "Unknown option 'num-sorted-run.compaction-triger'. Did you mean"
                + " 'num-sorted-run.compaction-trigger'?");
    assertThatThrownBy(() -> CatalogOptions.check(options)).hasMessage(embedded.getMessage());
  }

  @Test
  void aMisspeltTableOptionIsRefusedAtCreate() throws Exception {
    FileSystemCatalog catalog =
        new FileSystemCatalog(
            new LocalFileIO(),
            Path.of(dir.toUri().toString()),
            Map.of("write-only", "true", "snapshot.time-to-live", "2 h"));
    Schema schema =
        Schema.newBuilder()
            .column("k", DataType.intType())
            .primaryKey("k")
            .option("buckets", "2")
            .build();
    assertThatThrownBy(() -> catalog.createTable(new Identifier("db", "t"), schema))
        .isInstanceOf(UnknownOptionException.class)
        .hasMessageStartingWith("Unknown option 'buckets'. Did you mean 'bucket'?");
    assertThat(catalog.tableExists(new Identifier("db", "t"))).isFalse();
  }

  @Test
  void sizesAcceptBothSpellingsAndAliasesAreRead() {
    assertThat(CoreOptions.from(Map.of("write-buffer-size", "64mb")).writeBufferBytes())
        .isEqualTo(CoreOptions.from(Map.of("write-buffer-size", "64 MiB")).writeBufferBytes())
        .isEqualTo(64L << 20);
    assertThatCode(
            () -> CatalogOptions.check(Map.of("snapshot.time-to-live", "1 h", "warehouse", "/w")))
        .doesNotThrowAnyException();
  }
}
