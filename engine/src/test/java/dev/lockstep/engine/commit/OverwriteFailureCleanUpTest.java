package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An OVERWRITE of a dynamic-bucket table that fails without publishing (here: every create of its
 * snapshot fails before landing) deletes the key-hash index files it wrote for its new keys, as a
 * failed APPEND does (TableCommit.overwrite): only the caller's data files are left, which it
 * commits again or aborts. The same messages then overwrite the table. Real local store; the
 * failures come from FaultInjectingStore.
 */
class OverwriteFailureCleanUpTest {

  @TempDir java.nio.file.Path dir;

  /** Files no snapshot references, as relative paths. */
  private static List<String> unreferenced(FileStoreTable table) throws Exception {
    // A guard of 0 still keeps a file written in this very millisecond.
    Thread.sleep(5);
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    return report.removed().stream().map(OrphanReport.RemovedFile::path).toList();
  }

  @Test
  void aFailedDynamicBucketOverwriteDeletesItsIndexFiles() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        new FileSystemCatalog(io, Path.of(dir.toString()), Map.of())
            .createTable(
                new Identifier("db", "dyn"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .option("bucket", "-1")
                    .build());
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of(1, "a"));
      table.newCommit("w").commit(1, write.prepareCommit());
    }
    assertThat(unreferenced(table)).isEmpty();
    List<CommitMessage> messages;
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of(2, "b"));
      messages = write.prepareCommit();
    }
    assertThat(messages.get(0).indexHashes()).as("a new key: a key-hash assignment").hasSize(1);
    String dataFile = messages.get(0).newFiles().get(0).fileName();
    io.failNextMatching(
        Operation.CREATE, p -> p.name().equals("snapshot-2"), Fault.FAIL_BEFORE_LANDING, 3);

    assertThatThrownBy(() -> table.newCommit("w").overwrite(2, null, messages))
        .isInstanceOf(CleanableFailure.class);
    io.clearFaults();

    assertThat(unreferenced(table))
        .as("the index file and the manifests are deleted; the data file is the caller's")
        .singleElement()
        .satisfies(p -> assertThat(p).endsWith(dataFile));

    assertThat(table.newCommit("w").overwrite(2, null, messages).dataSnapshotId()).isEqualTo(2);
    Map<Integer, String> rows = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      rows.put((Integer) row.get(0), (String) row.get(1));
    }
    assertThat(rows).isEqualTo(Map.of(2, "b"));
    assertThat(unreferenced(table)).isEmpty();
  }
}
