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
 * Issue 18, item 4 (the same pattern in another commit kind): after a snapshot conflict, the commit
 * loop rebases by reading the deltas of the snapshots committed since its base. When those expired
 * before it could read them, the loop used to jump to the latest snapshot without checking
 * anything, so an OVERWRITE landed over APPENDs to its partitions that it never saw (the rule is:
 * it fails). Now it fails (nothing committed), and other kinds check the new base's live files.
 */
class OverwriteOverExpiredDeltasTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");
  private static final Schema SCHEMA =
      Schema.newBuilder()
          .column("k", DataType.intType())
          .column("v", DataType.string())
          .option("snapshot.num-retained.min", "1")
          .option("snapshot.num-retained.max", "1")
          .option("snapshot.time-retained", "1 ms")
          .build();

  @Test
  void anOverwriteWhoseConcurrentDeltasExpiredFailsInsteadOfLandingUnchecked() throws Exception {
    Path warehouse = Path.of(dir.toString());
    FileStoreTable others =
        new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of()).createTable(ID, SCHEMA);
    append(others, 1, 1);

    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable overwriter = new FileSystemCatalog(store, warehouse, Map.of()).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = overwriter.newWrite("overwrite")) {
      write.write(GenericRow.of(100, "overwrite"));
      messages = write.prepareCommit();
    }
    // Right before the overwrite's snapshot 2 lands, another writer appends 2: the overwrite
    // loses the race. When it then reads snapshot 2 to rebase (the second read of that file; the
    // first is lock-api's read-back), the other writer has appended 3 and 4 and expiration kept
    // only 4: the deltas the overwrite must check are gone.
    AtomicBoolean raced = new AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger reads =
        new java.util.concurrent.atomic.AtomicInteger();
    store.beforeLanding(
        Operation.CREATE,
        (operation, path) -> {
          if (path.name().startsWith("snapshot-") && raced.compareAndSet(false, true)) {
            append(others, 2, 2);
          }
        });
    store.beforeLanding(
        Operation.READ,
        (operation, path) -> {
          if (raced.get() && path.name().equals("snapshot-2") && reads.incrementAndGet() == 2) {
            append(others, 3, 3);
            append(others, 4, 4);
            assertThat(others.snapshotManager().log().listIds()).containsExactly(4L);
          }
        });

    assertThatThrownBy(() -> overwriter.newCommit("overwrite").overwrite(1, p -> true, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("nothing was committed")
        .hasMessageContaining("expired before it could check them");
    assertThat(raced).isTrue();
    assertThat(reads).hasValueGreaterThanOrEqualTo(2);
    List<Integer> keys = new ArrayList<>();
    for (GenericRow row : others.newRead().readAll(others.newScan().plan())) {
      keys.add((Integer) row.get(0));
    }
    assertThat(keys).containsExactlyInAnyOrder(1, 2, 3, 4);
  }

  private static void append(FileStoreTable table, long identifier, int key) throws IOException {
    try (TableWrite write = table.newWrite("other")) {
      write.write(GenericRow.of(key, "other"));
      table.newCommit("other").commit(identifier, write.prepareCommit());
    }
  }
}
