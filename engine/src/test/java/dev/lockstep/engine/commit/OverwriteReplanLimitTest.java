package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
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
 * An OVERWRITE overtaken by a compaction re-plans (OverwriteRaceTest) only while {@code
 * commit.max-retries} (and {@code commit.timeout}) allow: at the limit it fails, naming the limits,
 * with nothing committed and the table as the compaction left it. Real local store; the compaction
 * lands between the overwrite's plan and its first attempt.
 */
class OverwriteReplanLimitTest {

  @TempDir java.nio.file.Path dir;

  private List<GenericRow> overtakenOverwrite(Map<String, String> options, boolean expectFailure)
      throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        new FileSystemCatalog(store, Path.of(dir.toString()), Map.of())
            .createTable(
                new Identifier("db", "t"),
                Schema.newBuilder()
                    .column("p", DataType.intType())
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .partitionKeys("p")
                    .primaryKey("p", "k")
                    .options(options)
                    .build());
    TableCommit loader = table.newCommit("loader");
    try (TableWrite write = table.newWrite("loader")) {
      for (int c = 1; c <= 3; c++) {
        write.write(GenericRow.of(1, c, "old"));
        write.write(GenericRow.of(2, c, "keep"));
        loader.commit(c, write.prepareCommit());
      }
    }
    List<CommitMessage> messages;
    try (TableWrite overwriter = table.newWrite("batch")) {
      overwriter.write(GenericRow.of(1, 100, "new"));
      messages = overwriter.prepareCommit();
    }
    AtomicBoolean raced = new AtomicBoolean();
    AtomicBoolean inCompaction = new AtomicBoolean();
    try (TableCompactor compactor = table.newCompactor("compactor")) {
      store.beforeLanding(
          Operation.WRITE,
          (operation, path) -> {
            // The overwrite's delta manifest: the compaction lands between the overwrite's plan
            // and its first attempt (a file conflict without a snapshot conflict).
            if (path.name().startsWith("manifest-")
                && !path.name().startsWith("manifest-list-")
                && !inCompaction.get()
                && raced.compareAndSet(false, true)) {
              inCompaction.set(true);
              try {
                assertThat(compactor.compactOnce(true)).isPresent();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              } finally {
                inCompaction.set(false);
              }
            }
          });
      TableCommit batch = table.newCommit("batch");
      if (expectFailure) {
        assertThatThrownBy(() -> batch.overwrite(1, null, messages))
            .isInstanceOf(CommitFailedException.class)
            .hasMessageContaining("OVERWRITE commit 1 kept meeting concurrent compactions (1 plans")
            .hasMessageContaining("nothing was committed");
        assertThat(batch.isCommitted(1)).isFalse();
      } else {
        CommitResult result = batch.overwrite(1, null, messages);
        assertThat(table.snapshotManager().get(result.dataSnapshotId()).commitKind())
            .isEqualTo(CommitKind.OVERWRITE);
      }
      assertThat(raced).isTrue();
      assertThat(batch.fileConflicts()).isEqualTo(1);
    }
    store.clearFaults();
    assertThat(table.snapshotManager().latest().orElseThrow().commitKind())
        .isEqualTo(expectFailure ? CommitKind.COMPACT : CommitKind.OVERWRITE);
    if (!expectFailure) {
      // The first plan's files (its key-hash index files with dynamic buckets) are deleted.
      assertThat(OverwriteEdgesTest.unreferenced(table)).isEmpty();
    }
    return table.newRead().readAll(table.newScan().plan());
  }

  @Test
  void withNoRetriesLeftAnOvertakenOverwriteFailsAndTheTableIsUnchanged() throws Exception {
    assertThat(overtakenOverwrite(Map.of("commit.max-retries", "0"), true))
        .containsExactlyInAnyOrder(
            GenericRow.of(1, 1, "old"),
            GenericRow.of(1, 2, "old"),
            GenericRow.of(1, 3, "old"),
            GenericRow.of(2, 1, "keep"),
            GenericRow.of(2, 2, "keep"),
            GenericRow.of(2, 3, "keep"));
  }

  @Test
  void pastItsTimeoutAnOvertakenOverwriteFails() throws Exception {
    // One nanosecond: spent before the first conflict, whatever the machine.
    overtakenOverwrite(Map.of("commit.timeout", "1 ns"), true);
  }

  @Test
  void withOneRetryLeftItReplansAndLands() throws Exception {
    assertThat(overtakenOverwrite(Map.of("commit.max-retries", "1"), false))
        .containsExactlyInAnyOrder(
            GenericRow.of(1, 100, "new"),
            GenericRow.of(2, 1, "keep"),
            GenericRow.of(2, 2, "keep"),
            GenericRow.of(2, 3, "keep"));
  }

  @Test
  void withTimeToSpareAndOneRetryLeftItReplansAndLands() throws Exception {
    // The time spent is measured from the overwrite's start (System.nanoTime differences): ten
    // minutes are far from spent after one re-plan.
    assertThat(
            overtakenOverwrite(
                Map.of("commit.max-retries", "1", "commit.timeout", "10 min"), false))
        .contains(GenericRow.of(1, 100, "new"));
  }

  @Test
  void aDynamicBucketOverwriteReplansAndDeletesTheFirstPlansIndexFiles() throws Exception {
    assertThat(overtakenOverwrite(Map.of("bucket", "-1", "commit.max-retries", "1"), false))
        .containsExactlyInAnyOrder(
            GenericRow.of(1, 100, "new"),
            GenericRow.of(2, 1, "keep"),
            GenericRow.of(2, 2, "keep"),
            GenericRow.of(2, 3, "keep"));
  }
}
