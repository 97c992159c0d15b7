package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
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
 * The check after publishing the first snapshot of a table (CommitLoop.verifyFresh, gone, builtOn)
 * when ours and everything up to the head expired before the check read it, and the head no longer
 * names our delta list among its prior deltas: a snapshot in between materialized a new base list
 * (more than MAX_PRIOR_DELTAS prior deltas), which holds our delta manifest. That is built on ours:
 * acknowledged (an unknown outcome there would make the caller commit the same rows again).
 */
class FreshSnapshotBaseListCheckTest {

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

  @Test
  void aFirstSnapshotWhoseSuccessorsExpiredIsAcknowledgedByTheHeadsBaseList() throws Exception {
    int appends = CommitLoop.MAX_PRIOR_DELTAS + 3;
    FileStoreTable other =
        catalog(new LocalFileIO())
            .createTable(
                ID,
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .option("snapshot.num-retained.min", "1")
                    .option("snapshot.num-retained.max", "1")
                    .option("snapshot.time-retained", "1 h")
                    .option("manifest.merge-min-count", "1000")
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
          if (published.get()
              && path.name().equals("snapshot-1")
              && raced.compareAndSet(false, true)) {
            try {
              for (int i = 0; i < appends; i++) {
                append(other, "other", 100 + i, 2 + i);
              }
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        });

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(raced).as("the other writer committed during the check").isTrue();
    assertThat(result.dataSnapshotId()).isEqualTo(1);
    // One snapshot per append, and a compaction snapshot whenever the writer's inline compaction
    // of the small files landed, at a moment of its own: at most one per append. (Write-only would
    // make the count exact, but it also turns off the expiration this test needs.)
    List<Long> listed = other.snapshotManager().log().listIds();
    assertThat(listed).hasSize(1);
    long head = listed.get(0);
    assertThat(head).isBetween((long) appends + 1, 2L * appends + 1);
    Snapshot last = other.snapshotManager().get(head);
    assertThat(last.priorDeltas())
        .as("the head does not name our delta list")
        .noneMatch(p -> p.snapshotId() == 1);
    assertThat(last.baseManifestList()).isNotNull();
    assertThat(other.newRead().readAll(other.newScan().plan())).hasSize(appends + 1);
  }
}
