package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
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
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check after publishing (CommitLoop.verifyFresh, gone, builtOn) on the first snapshot of a
 * table, which has no base to prove the id fresh by: other writers build on ours right after it
 * lands, and it may expire before the check reads it. A snapshot the next one was built on is
 * fresh; ours gone with snapshot 2 naming it as parent is fresh; ours and 2 gone with the head
 * naming our delta among its prior deltas is fresh. Each is acknowledged (a withdrawal or a failure
 * there would report a landed commit as not committed, and a re-commit would land it twice). Real
 * local store; the other writer commits at the exact moment through a store hook.
 */
class FreshSnapshotCheckTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");

  private FileSystemCatalog catalog(FileIO io) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private static void append(FileStoreTable table, String user, long identifier, int key)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(key, user));
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  private static Map<Integer, String> rows(FileStoreTable table) throws IOException {
    Map<Integer, String> rows = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      rows.put((Integer) row.get(0), (String) row.get(1));
    }
    return rows;
  }

  /**
   * Our commit publishes snapshot 1 of an empty table; at the first read of {@code trigger} after
   * that, the other writer appends {@code appends} snapshots (keys 2, 3, ...) on top of ours, with
   * {@code retained} snapshots kept by expiration ({@code snapshot.num-retained.max}).
   */
  private FileStoreTable raceAfterPublish(String trigger, int appends, int retained)
      throws Exception {
    FileStoreTable other =
        catalog(new LocalFileIO())
            .createTable(
                ID,
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .option("snapshot.num-retained.min", "1")
                    .option("snapshot.num-retained.max", String.valueOf(retained))
                    .option("snapshot.time-retained", "1 h")
                    .build());
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(1, "ours"));
      messages = write.prepareCommit();
    }
    AtomicBoolean published = new AtomicBoolean();
    AtomicBoolean raced = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1")) {
            published.set(true);
          }
        });
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (published.get() && path.name().equals(trigger) && raced.compareAndSet(false, true)) {
            for (int i = 0; i < appends; i++) {
              append(other, "other", 100 + i, 2 + i);
            }
          }
        });

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(raced).as("the other writer committed during the check").isTrue();
    assertThat(result.dataSnapshotId()).isEqualTo(1);
    assertThat(result.retries()).isZero();
    return other;
  }

  @Test
  void aFirstSnapshotTheNextWasBuiltOnIsAcknowledged() throws Exception {
    // The check reads snapshot 2 (is it built on ours?) right after ours.
    FileStoreTable table = raceAfterPublish("snapshot-2", 1, 10);

    assertThat(table.snapshotManager().get(2).parentCommitId())
        .isEqualTo(table.snapshotManager().get(1).commitId());
    assertThat(rows(table)).isEqualTo(Map.of(1, "ours", 2, "other"));
  }

  @Test
  void aFirstSnapshotThatExpiredWithItsSuccessorStillThereIsAcknowledged() throws Exception {
    // Two snapshots on ours, two kept: ours is gone when the check reads it, 2 names it.
    FileStoreTable table = raceAfterPublish("snapshot-1", 2, 2);

    assertThat(table.snapshotManager().log().listIds()).containsExactly(2L, 3L);
    assertThat(rows(table)).isEqualTo(Map.of(1, "ours", 2, "other", 3, "other"));
  }

  @Test
  void aFirstSnapshotThatExpiredWithItsSuccessorIsAcknowledgedByTheHeadsPriorDeltas()
      throws Exception {
    // Three snapshots on ours, one kept: ours, 2 and 3 are gone, the head names our delta list.
    FileStoreTable table = raceAfterPublish("snapshot-1", 3, 1);

    assertThat(table.snapshotManager().log().listIds()).containsExactly(4L);
    assertThat(rows(table)).isEqualTo(Map.of(1, "ours", 2, "other", 3, "other", 4, "other"));
  }
}
