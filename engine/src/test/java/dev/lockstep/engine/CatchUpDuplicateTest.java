package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, item 4: the commit loop's catch-up check ("a snapshot committed since our base already
 * carries our commit user, identifier and kind") is the only guard once the loop runs: the
 * exactly-once check of {@code TableCommit} runs once, before it. Here a second committer with the
 * same user and identifier (a restarted writer's predecessor, or an earlier attempt landing late)
 * lands the same messages while the first committer's attempt is losing a race: the table must hold
 * exactly one APPEND of that identifier. Removing the check makes the first committer publish the
 * same files a second time.
 */
class CatchUpDuplicateTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");
  private static final Schema SCHEMA =
      Schema.newBuilder().column("k", DataType.intType()).column("v", DataType.string()).build();

  @Test
  void aTwinThatLandsTheSameIdentifierWhileWeRetryMakesUsANoOp() throws Exception {
    Path warehouse = Path.of(dir.toString());
    FileStoreTable other =
        new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of()).createTable(ID, SCHEMA);
    commit(other, "other", 1, 1);

    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable first = new FileSystemCatalog(store, warehouse, Map.of()).getTable(ID);
    FileStoreTable twin =
        new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of()).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = first.newWrite("job")) {
      for (int k = 0; k < 10; k++) {
        write.write(GenericRow.of(100 + k, "job"));
      }
      messages = write.prepareCommit();
    }
    // Right before the first committer's snapshot 2 lands: another writer takes 2, and the twin
    // (same user, same identifier, same messages) commits as 3. The first attempt then conflicts
    // and the loop catches up over 2 and 3.
    AtomicBoolean once = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().startsWith("snapshot-") && once.compareAndSet(false, true)) {
            commit(other, "other", 2, 2);
            CommitResult twinResult = twin.newCommit("job").commit(7, messages);
            assertThat(twinResult.dataSnapshotId()).isEqualTo(3);
          }
        });

    CommitResult result = first.newCommit("job").commit(7, messages);

    assertThat(once).isTrue();
    assertThat(result.dataSnapshotId()).isEqualTo(3);
    List<Snapshot> appends = new ArrayList<>();
    long latest = other.snapshotManager().latestId().getAsLong();
    for (long id = 1; id <= latest; id++) {
      Snapshot s = other.snapshotManager().get(id);
      if (s.commitUser().equals("job")
          && s.commitIdentifier() == 7
          && s.commitKind() == CommitKind.APPEND) {
        appends.add(s);
      }
    }
    assertThat(appends).as("APPEND snapshots of (job, 7)").hasSize(1);
    assertThat(latest).isEqualTo(3);
    assertThat(other.newRead().readAll(other.newScan().plan())).hasSize(12);
  }

  private static void commit(FileStoreTable table, String user, long identifier, int key)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(key, user));
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }
}
