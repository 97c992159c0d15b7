package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot that landed but lost its answer, and was built on and expired before the commit read
 * it back: the commit must neither write it again (the same commit twice, under an id that had
 * existed) nor report "nothing committed" while its rows are in the table (and then delete the
 * delta manifests later snapshots name). Real local store; the lost answer and the racing commits
 * are injected at the exact moments.
 */
class LostAnswerExpiredBeforeReadBackTest {

  @TempDir java.nio.file.Path dir;

  @Test
  void aCommitWhoseSnapshotWasBuiltOnAndExpiredBeforeItsReadBackIsAcknowledgedOnce()
      throws Exception {
    Path warehouse = Path.of(dir.toString());
    FileStoreTable others = TinyRetention.create(warehouse);
    TinyRetention.commit(others, "other", 1, 1);
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable slow =
        new FileSystemCatalog(store, warehouse, Map.of()).getTable(TinyRetention.TABLE);
    List<CommitMessage> messages;
    try (TableWrite write = slow.newWrite("slow")) {
      write.write(GenericRow.of(100, "slow"));
      messages = write.prepareCommit();
    }
    store.failNextMatching(
        Operation.CREATE, p -> p.name().equals("snapshot-2"), Fault.LOSE_ANSWER_AFTER_LANDING, 1);
    AtomicBoolean landed = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().equals("snapshot-2")) {
            landed.set(true);
          }
        });
    AtomicBoolean raced = new AtomicBoolean();
    store.beforeLanding(
        Operation.READ,
        (operation, path) -> {
          if (landed.get()
              && path.name().equals("snapshot-2")
              && raced.compareAndSet(false, true)) {
            // Right before the read-back: two more commits build on snapshot 2, and it expires.
            TinyRetention.commit(others, "other", 2, 2);
            TinyRetention.commit(others, "other", 3, 3);
          }
        });

    CommitResult result = slow.newCommit("slow").commit(1, messages);

    assertThat(raced).isTrue();
    assertThat(result.dataSnapshotId())
        .as("the commit is acknowledged as the snapshot it landed")
        .isEqualTo(2);
    assertThat(TinyRetention.keys(warehouse))
        .as("every commit once, readable by a fresh reader")
        .containsExactlyInAnyOrder(1, 2, 3, 100);
  }
}
