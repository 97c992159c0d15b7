package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit whose base snapshot expires while it runs must not publish: the snapshot numbers after
 * its base may have expired too, and publishing one would reuse a number another commit already
 * had.
 */
class ExpiredBaseTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");
  private static final Schema SCHEMA =
      Schema.newBuilder().column("k", DataType.intType()).column("v", DataType.string()).build();

  private static void commitOne(FileStoreTable table, String user, long identifier)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of((int) identifier, user));
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  @Test
  void aCommitWhoseBaseExpiredMeanwhileFailsAndPublishesNothing() throws Exception {
    Path warehouse = Path.of(dir.toString());
    FileIO raw = new LocalFileIO();
    FileStoreTable other = new FileSystemCatalog(raw, warehouse, Map.of()).createTable(ID, SCHEMA);
    commitOne(other, "other", 1);

    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable slow = new FileSystemCatalog(store, warehouse, Map.of()).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = slow.newWrite("slow")) {
      write.write(GenericRow.of(100, "slow"));
      messages = write.prepareCommit();
    }
    // While the slow commit writes its manifest, the table moves on by three snapshots and
    // expiration removes snapshots 1 to 3, keeping 4.
    AtomicBoolean once = new AtomicBoolean();
    store.beforeLanding(
        Operation.WRITE,
        (operation, path) -> {
          if (path.toString().contains("/manifest/") && once.compareAndSet(false, true)) {
            for (long i = 2; i <= 4; i++) {
              commitOne(other, "other", i);
            }
            for (long i = 1; i <= 3; i++) {
              raw.delete(other.snapshotManager().log().snapshotPath(i), false);
            }
          }
        });

    assertThatThrownBy(() -> slow.newCommit("slow").commit(1, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("expired while the commit was running")
        .hasMessageContaining("snapshot.time-retained");
    assertThat(once).isTrue();
    assertThat(other.snapshotManager().log().listIds()).containsExactly(4L);
    assertThat(other.snapshotManager().latestId()).hasValue(4);
  }
}
