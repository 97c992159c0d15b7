package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After publishing, the commit proves its snapshot id fresh by reading its base again
 * (CommitLoop.confirmFresh): a read that fails is tried again, up to three checks; when all three
 * fail the commit has landed but cannot be confirmed, so it is an unknown outcome (never "nothing
 * happened"), and committing the same identifier again finds it. Real local store; the store fails
 * the base's reads right after our snapshot lands.
 */
class FreshnessCheckReadFailureTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable table(FaultInjectingStore io) throws IOException {
    FileSystemCatalog catalog = new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
    Identifier id = new Identifier("db", "t");
    if (!catalog.tableExists(id)) {
      catalog.createTable(id, Schema.newBuilder().column("n", DataType.bigint()).build());
    }
    return catalog.getTable(id);
  }

  private static List<CommitMessage> written(FileStoreTable table, long n) throws IOException {
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of(n));
      return write.prepareCommit();
    }
  }

  /** Snapshot 1 committed; once snapshot 2 lands, the next {@code failures} reads of 1 fail. */
  private FileStoreTable prepared(FaultInjectingStore io, int failures) throws IOException {
    FileStoreTable table = table(io);
    table.newCommit("u").commit(1, written(table, 1));
    AtomicBoolean armed = new AtomicBoolean();
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-2") && armed.compareAndSet(false, true)) {
            io.failNextMatching(
                Operation.READ,
                p -> p.name().equals("snapshot-1"),
                Fault.FAIL_BEFORE_LANDING,
                failures);
          }
        });
    return table;
  }

  @Test
  void twoFailedChecksAreTriedAgainAndTheCommitIsConfirmed() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = prepared(io, 2);

    assertThat(table.newCommit("u").commit(2, written(table, 2)).dataSnapshotId()).isEqualTo(2);
    assertThat(io.injected(Operation.READ, Fault.FAIL_BEFORE_LANDING)).isEqualTo(2);
  }

  @Test
  void threeFailedChecksAreAnUnknownOutcomeAndTheCommitIsFoundLater() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = prepared(io, 3);
    List<CommitMessage> messages = written(table, 2);

    assertThatThrownBy(() -> table.newCommit("u").commit(2, messages))
        .isInstanceOf(CommitStateUnknownException.class);
    io.clearFaults();

    assertThat(table.snapshotManager().get(2).commitIdentifier()).isEqualTo(2);
    assertThat(table.newCommit("u").commit(2, messages).alreadyCommitted()).isTrue();
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(2);
  }
}
