package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * engine/README.md, "the real window" (b): a committer paused between its base check and its
 * publish publishes an id that had existed and expired; an expiration that still had the id's first
 * holder in its plan then deletes our file by name. The check after publishing finds our file gone:
 * that must not read as "fresh" (acknowledged, then lost), since the snapshot after it was built on
 * the first holder. Real local store; the pause and the stale deletion are injected.
 */
class ReusedIdDeletedByExpirationTest {

  @TempDir java.nio.file.Path dir;

  @Test
  void aReusedIdThatAnExpirationDeletedFailsTheCommitInsteadOfAcknowledgingIt() throws Exception {
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
    java.nio.file.Path snapshot2 = dir.resolve("db.db/t/snapshot/snapshot-2");
    AtomicBoolean paused = new AtomicBoolean();
    AtomicBoolean published = new AtomicBoolean();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().equals("snapshot-2") && paused.compareAndSet(false, true)) {
            // Our commit checked its base (1) and pauses: others commit 2 and 3, 1 and 2 expire.
            TinyRetention.commit(others, "other", 2, 2);
            TinyRetention.commit(others, "other", 3, 3);
            assertThat(Files.exists(snapshot2)).isFalse();
            published.set(true);
          }
        });
    AtomicBoolean deleted = new AtomicBoolean();
    store.beforeLanding(
        Operation.READ,
        (operation, path) -> {
          if (published.get() && Files.exists(snapshot2) && deleted.compareAndSet(false, true)) {
            // Our snapshot-2 has landed; the stale expiration deletes it by name.
            Files.delete(snapshot2);
          }
        });

    assertThatThrownBy(() -> slow.newCommit("slow").commit(1, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("nothing was committed");

    assertThat(deleted).isTrue();
    assertThat(TinyRetention.keys(warehouse)).containsExactlyInAnyOrder(1, 2, 3);
    // Nothing of it is in the table: the same messages commit once.
    FileStoreTable fresh =
        new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of()).getTable(TinyRetention.TABLE);
    assertThat(fresh.newCommit("slow").commit(1, messages).dataSnapshotId()).isEqualTo(4);
    assertThat(TinyRetention.keys(warehouse)).containsExactlyInAnyOrder(1, 2, 3, 100);
  }
}
