package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
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

/**
 * A COMPACT snapshot that fails after the batch's APPEND landed (TableCommit.commit): with an
 * unknown outcome the compaction's output may be live, so it is kept and the failure reaches the
 * caller (deleting it would lose the rows of a landed compaction); a compaction-only batch whose
 * COMPACT fails without publishing deletes its output and reports the failure (nothing of the batch
 * was committed). Real local store with injected faults.
 */
class CompactCommitFailureTest {

  @TempDir java.nio.file.Path dir;

  private FaultInjectingStore store;
  private FileStoreTable table;

  @BeforeEach
  void createTable() throws IOException {
    store = FaultInjectingStore.wrap(new LocalFileIO());
    table =
        new FileSystemCatalog(store, Path.of(dir.toString()), Map.of())
            .createTable(
                new Identifier("db", "t"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .build());
  }

  /** Two committed snapshots (keys 1 and 2), then a writer that compacts them. */
  private TableWrite twoFilesAndACompaction(TableCommit commit) throws IOException {
    TableWrite write = table.newWrite("u");
    for (int c = 1; c <= 2; c++) {
      write.write(GenericRow.of(c, "c" + c));
      commit.commit(c, write.prepareCommit());
    }
    write.compact(true);
    return write;
  }

  private boolean exists(DataFileMeta f) throws IOException {
    return store.delegate().exists(table.bucketPath("", 0).child(f.fileName()));
  }

  @Test
  void anUnknownCompactOutcomeKeepsTheCompactionOutputAndReachesTheCaller() throws Exception {
    TableCommit commit = table.newCommit("u");
    List<CommitMessage> messages;
    try (TableWrite write = twoFilesAndACompaction(commit)) {
      write.write(GenericRow.of(3, "c3"));
      messages = write.prepareCommit();
    }
    List<DataFileMeta> outputs = messages.get(0).compactAfter();
    assertThat(outputs).isNotEmpty();
    // APPEND lands as snapshot 3; the COMPACT snapshot 4 lands, but its answer and every read
    // of it are lost: the outcome is unknown.
    store.failNextMatching(
        Operation.CREATE, p -> p.name().equals("snapshot-4"), Fault.LOSE_ANSWER_AFTER_LANDING, 1);
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().equals("snapshot-4")) {
            store.failNextMatching(
                Operation.READ, p -> p.equals(path), Fault.FAIL_BEFORE_LANDING, 10);
          }
        });

    assertThatThrownBy(() -> commit.commit(3, messages))
        .isInstanceOf(CommitStateUnknownException.class);
    store.clearFaults();

    FileStoreTable fresh = TestTables.catalog(dir).getTable(new Identifier("db", "t"));
    assertThat(fresh.snapshotManager().get(4).commitKind()).isEqualTo(CommitKind.COMPACT);
    for (DataFileMeta f : outputs) {
      assertThat(exists(f)).as("compaction output %s, live in snapshot 4", f.fileName()).isTrue();
    }
    assertThat(TestTables.readKeyValues(fresh)).isEqualTo(Map.of(1, "c1", 2, "c2", 3, "c3"));
  }

  @Test
  void aCompactionOnlyBatchWhoseCompactFailsDeletesItsOutputAndFails() throws Exception {
    TableCommit commit = table.newCommit("u");
    List<CommitMessage> messages;
    try (TableWrite write = twoFilesAndACompaction(commit)) {
      messages = write.prepareCommit();
    }
    assertThat(messages).singleElement().satisfies(m -> assertThat(m.newFiles()).isEmpty());
    List<DataFileMeta> outputs = messages.get(0).compactAfter();
    assertThat(outputs).isNotEmpty();
    store.failNextMatching(
        Operation.CREATE, p -> p.name().equals("snapshot-3"), Fault.FAIL_BEFORE_LANDING, 3);

    assertThatThrownBy(() -> commit.commit(3, messages)).isInstanceOf(CleanableFailure.class);
    store.clearFaults();

    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(2);
    assertThat(commit.isCommitted(3)).isFalse();
    for (DataFileMeta f : outputs) {
      assertThat(exists(f)).as("dropped compaction output %s", f.fileName()).isFalse();
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "c1", 2, "c2"));
  }
}
