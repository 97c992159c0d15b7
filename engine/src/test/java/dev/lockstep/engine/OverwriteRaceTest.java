package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An OVERWRITE that a compaction overtakes at the last moment (between planning and publishing)
 * re-plans instead of failing or resurrecting the compacted data.
 */
class OverwriteRaceTest {

  @TempDir java.nio.file.Path dir;

  @Test
  void aCompactionLandingJustBeforeAnOverwriteMakesItReplan() throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileSystemCatalog catalog = new FileSystemCatalog(store, Path.of(dir.toString()), Map.of());
    FileStoreTable table =
        catalog.createTable(
            new Identifier("db", "t"),
            Schema.newBuilder()
                .column("p", DataType.intType())
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .partitionKeys("p")
                .primaryKey("p", "k")
                .build());
    TableCommit loader = table.newCommit("loader");
    try (TableWrite write = table.newWrite("loader")) {
      for (int c = 1; c <= 3; c++) {
        write.write(GenericRow.of(1, c, "old"));
        write.write(GenericRow.of(2, c, "keep"));
        loader.commit(c, write.prepareCommit());
      }
    }
    TableWrite overwriter = table.newWrite("batch");
    overwriter.write(GenericRow.of(1, 100, "new"));
    List<CommitMessage> messages = overwriter.prepareCommit();

    // The first time the overwrite publishes, a full compaction of the table lands first.
    TableCompactor compactor = table.newCompactor("compactor");
    AtomicBoolean raced = new AtomicBoolean();
    AtomicBoolean inCompaction = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().startsWith("snapshot-")
              && !inCompaction.get()
              && raced.compareAndSet(false, true)) {
            inCompaction.set(true);
            try {
              assertThat(compactor.compactOnce(true)).isPresent();
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            } finally {
              inCompaction.set(false);
            }
          }
        });
    TableCommit batch = table.newCommit("batch");
    CommitResult result = batch.overwrite(1, null, messages);
    store.clearFaults();
    compactor.close();
    overwriter.close();

    assertThat(raced).isTrue();
    assertThat(batch.fileConflicts()).as("the compaction forced one re-plan").isEqualTo(1);
    assertThat(table.snapshotManager().get(result.dataSnapshotId()).commitKind())
        .isEqualTo(CommitKind.OVERWRITE);
    List<GenericRow> rows = table.newRead().readAll(table.newScan().plan());
    assertThat(rows)
        .containsExactlyInAnyOrder(
            GenericRow.of(1, 100, "new"),
            GenericRow.of(2, 1, "keep"),
            GenericRow.of(2, 2, "keep"),
            GenericRow.of(2, 3, "keep"));
  }
}
