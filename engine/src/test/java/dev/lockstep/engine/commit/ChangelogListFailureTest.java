package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The changelog files of an {@code input} commit go into the APPEND snapshot through a manifest and
 * a list of their own (ChangelogList): when writing the list fails, the manifest written for it is
 * deleted (nobody names it), and the same messages commit later with their changelog. Real local
 * store; the store fails the list's write.
 */
class ChangelogListFailureTest {

  @TempDir java.nio.file.Path dir;

  @Test
  void aFailedChangelogListWriteDeletesItsManifestAndTheBatchCommitsLater() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        new FileSystemCatalog(io, Path.of(dir.toString()), Map.of())
            .createTable(
                new Identifier("db", "kv"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .option("changelog-producer", "input")
                    .build());
    List<CommitMessage> messages;
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of(1, "a"));
      messages = write.prepareCommit();
    }
    assertThat(messages.get(0).changelogFiles()).isNotEmpty();
    // The first manifest list the commit writes is the changelog's (before the delta's).
    io.failNextMatching(
        Operation.WRITE, p -> p.name().startsWith("manifest-list-"), Fault.FAIL_BEFORE_LANDING, 1);
    TableCommit commit = table.newCommit("u");

    assertThatThrownBy(() -> commit.commit(1, messages)).isInstanceOf(IOException.class);
    io.clearFaults();

    // No snapshot exists: any manifest or list in the table's directory would be nobody's.
    java.nio.file.Path manifests = dir.resolve("db.db/kv/manifest");
    if (java.nio.file.Files.isDirectory(manifests)) {
      try (var files = java.nio.file.Files.list(manifests)) {
        assertThat(files.map(f -> f.getFileName().toString()))
            .as("the changelog's manifest is deleted")
            .isEmpty();
      }
    }
    assertThat(table.snapshotManager().latestId()).isEmpty();

    assertThat(commit.commit(1, messages).dataSnapshotId()).isEqualTo(1);
    assertThat(table.snapshotManager().get(1).changelogRecordCount()).isEqualTo(1);
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "a"));
  }
}
