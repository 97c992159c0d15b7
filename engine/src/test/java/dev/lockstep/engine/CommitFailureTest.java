package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a caller sees when the store fails under a commit, and what stays behind. */
class CommitFailureTest {

  @TempDir java.nio.file.Path dir;

  private FaultInjectingStore store;
  private FileStoreTable table;

  @BeforeEach
  void createTable() throws IOException {
    store = FaultInjectingStore.wrap(new LocalFileIO());
    FileSystemCatalog catalog = new FileSystemCatalog(store, Path.of(dir.toString()), Map.of());
    table =
        catalog.createTable(
            new Identifier("db", "t"),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .build());
  }

  private List<CommitMessage> batch(String value) throws IOException {
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of(1, value));
      write.write(GenericRow.of(2, value));
      return write.prepareCommit();
    }
  }

  @Test
  void anUnknownOutcomeIsSurfacedNothingIsCleanedUpAndARetryIsANoOp() throws Exception {
    List<CommitMessage> messages = batch("x");
    store.failNextMatching(
        Operation.CREATE,
        p -> p.name().startsWith("snapshot-"),
        Fault.LOSE_ANSWER_AFTER_LANDING,
        1);
    // Once the snapshot is being published, reading it back fails too: the outcome is unknown.
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().startsWith("snapshot-")) {
            store.failNextMatching(
                Operation.READ, p -> p.equals(path), Fault.FAIL_BEFORE_LANDING, 10);
          }
        });
    assertThatThrownBy(() -> table.newCommit("u").commit(1, messages))
        .isInstanceOf(CommitStateUnknownException.class)
        .hasMessageContaining("Do not clean up");
    store.clearFaults();
    for (DataFileMeta file : messages.get(0).newFiles()) {
      assertThat(store.exists(table.bucketPath("", 0).child(file.fileName()))).isTrue();
    }
    // After a restart the same identifier is found in the snapshot that did land.
    TableCommit restarted = table.newCommit("u");
    assertThat(restarted.commit(1, messages).alreadyCommitted()).isTrue();
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "x", 2, "x"));
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(1);
  }

  @Test
  void aFailedSnapshotWriteLeavesTheBatchCommittableLater() throws Exception {
    List<CommitMessage> messages = batch("y");
    store.failNextMatching(
        Operation.CREATE, p -> p.name().startsWith("snapshot-"), Fault.FAIL_BEFORE_LANDING, 3);
    TableCommit commit = table.newCommit("u");
    assertThatThrownBy(() -> commit.commit(1, messages))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(CommitStateUnknownException.class)
        .hasMessageContaining("nothing was committed");
    assertThat(table.snapshotManager().latestId()).isEmpty();
    assertThat(commit.commit(1, messages).dataSnapshotId()).isEqualTo(1);
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "y", 2, "y"));
  }

  @Test
  void aFailedCompactSnapshotAfterCommittedDataDropsTheCompactionQuietly() throws Exception {
    TableCommit commit = table.newCommit("u");
    List<DataFileMeta> outputs;
    try (TableWrite write = table.newWrite("u")) {
      for (int c = 1; c <= 2; c++) {
        write.write(GenericRow.of(c, "c" + c));
        commit.commit(c, write.prepareCommit());
      }
      write.compact(true);
      write.write(GenericRow.of(3, "c3"));
      List<CommitMessage> messages = write.prepareCommit();
      outputs = messages.get(0).compactAfter();
      assertThat(outputs).isNotEmpty();
      // APPEND lands as snapshot 3; every write of the COMPACT snapshot 4 fails before landing.
      store.failNextMatching(
          Operation.CREATE, p -> p.name().equals("snapshot-4"), Fault.FAIL_BEFORE_LANDING, 3);
      var result = commit.commit(3, messages);
      assertThat(result.dataSnapshotId()).isEqualTo(3);
      assertThat(result.compactSnapshotId()).isEqualTo(-1);
      assertThat(result.droppedCompactions())
          .containsExactly(new dev.lockstep.engine.manifest.BucketId("", 0));
    }
    for (DataFileMeta f : outputs) {
      assertThat(store.exists(table.bucketPath("", 0).child(f.fileName()))).isFalse();
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "c1", 2, "c2", 3, "c3"));
  }

  @Test
  void aFailedDataFileWriteIsNeverCommittedAsAPartialBatch() throws Exception {
    FileSystemCatalog catalog = new FileSystemCatalog(store, Path.of(dir.toString()), Map.of());
    FileStoreTable log =
        catalog.createTable(
            new Identifier("db", "log"),
            Schema.newBuilder().column("n", DataType.bigint()).build());
    try (TableWrite write = log.newWrite("u")) {
      // The fault is decided when the data file opens and strikes when it closes.
      store.failNextMatching(
          Operation.WRITE, p -> p.name().startsWith("data-"), Fault.FAIL_BEFORE_LANDING, 1);
      write.write(GenericRow.of(1L));
      assertThatThrownBy(write::prepareCommit).isInstanceOf(IOException.class);
      write.write(GenericRow.of(2L));
      fail("a write after a lost file must be refused");
    } catch (IOException e) {
      assertThat(e).hasMessageContaining("write the batch again");
    }
    assertThat(log.snapshotManager().latestId()).isEmpty();
  }

  @Test
  void commitsRefuseAStoreWithoutASafePrimitiveNamingTheFix() throws Exception {
    FileSystemCatalog plain =
        new FileSystemCatalog(
            new dev.lockstep.testing.CapabilityHidingFileIO(new LocalFileIO()),
            Path.of(dir.toString()),
            Map.of());
    FileStoreTable hidden = plain.getTable(Identifier.parse("db.t"));
    assertThatThrownBy(() -> hidden.newCommit("u").commit(1, batch("z")))
        .hasMessageContaining("lock.enabled=true");
  }
}
