package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: a commit that would carry forward a reference to a data file that a read just found
 * missing fails with the file named, instead of publishing another snapshot that references it.
 */
class MissingDataFileCommitTest {

  @TempDir Path dir;

  private static void write(FileStoreTable table, long identifier, int from, int to)
      throws IOException {
    try (TableWrite write = table.newWrite("w")) {
      for (int k = from; k < to; k++) {
        write.write(GenericRow.of(k, "v" + identifier));
      }
      table.newCommit("w").commit(identifier, write.prepareCommit());
    }
  }

  private static Path firstFile(FileStoreTable table) throws IOException {
    ManifestEntry e =
        table.store().liveFiles(table.snapshotManager().get(1)).values().iterator().next();
    return Path.of(
        table.bucketPath(e.partition(), e.bucket()).child(e.file().fileName()).pathPart());
  }

  @Test
  void aCommitAfterAReadFoundAFileMissingFailsNamingIt() throws Exception {
    TestTables.keyValueTable(dir, Map.of("write-only", "true"));
    FileStoreTable table = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
    write(table, 1, 0, 10);
    write(table, 2, 10, 20);
    Path missing = firstFile(table);
    byte[] bytes = Files.readAllBytes(missing);
    Files.delete(missing);

    assertThatThrownBy(() -> TestTables.readKeyValues(table)).isInstanceOf(IOException.class);
    long latest = table.snapshotManager().latestId().getAsLong();
    assertThatThrownBy(() -> write(table, 3, 20, 30))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("Data file " + missing + " of db.kv is missing")
        .hasMessageContaining("snapshot " + latest + " references it")
        .hasMessageContaining("nothing was committed");
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(latest);

    // Another table object of the same table in this JVM refuses too.
    FileStoreTable other = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
    assertThatThrownBy(() -> write(other, 3, 20, 30)).isInstanceOf(CommitFailedException.class);

    // Restored: the commit goes through and the file is forgotten.
    Files.write(missing, bytes);
    write(table, 3, 20, 30);
    assertThat(TestTables.readKeyValues(table)).hasSize(30);
  }

  @Test
  void anOverwriteOfThePartitionHoldingTheMissingFileDropsTheReference() throws Exception {
    TestTables.appendTable(dir, Map.of());
    FileStoreTable table = TestTables.catalog(dir).getTable(Identifier.parse("db.log"));
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of("a", 1L));
      table.newCommit("w").commit(1, write.prepareCommit());
    }
    Files.delete(firstFile(table));
    assertThatThrownBy(() -> table.newRead().readAll(table.newScan().plan()))
        .isInstanceOf(IOException.class);
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of("b", 2L));
      Predicate<String> all = p -> true;
      table.newCommit("w").overwrite(2, all, write.prepareCommit());
    }
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(1);
  }
}
