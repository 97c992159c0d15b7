package dev.lockstep.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.flink.TableLoader;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a streaming read starts when its job is restored from a checkpoint taken before the
 * enumerator's first poll. Flink's own enumerator context runs the enumerator's async poll only
 * when the test says so, which puts the checkpoint in that window deterministically.
 */
class StreamEnumeratorStartTest {

  @TempDir java.nio.file.Path dir;

  @Test
  void aCheckpointBeforeTheFirstPollHoldsTheStartOfALatestStream() throws Throwable {
    TableLoader table = createAppendTable();
    commit(table, 1, 2, 3);
    TableLoader latest = table.withOptions(Map.of("scan.mode", "latest"));

    StreamPosition checkpoint;
    try (MockSplitEnumeratorContext<ChangesSplit> context = new MockSplitEnumeratorContext<>(1);
        LockstepStreamEnumerator enumerator = enumerator(context, latest, null)) {
      enumerator.start();
      assertThat(context.getPeriodicCallables()).as("the poll is scheduled, not run").hasSize(1);
      checkpoint = enumerator.snapshotState(1);
    }
    // 'latest' started after snapshot 3: the checkpoint says so, although nothing was polled.
    assertThat(checkpoint.nextSnapshot()).isEqualTo(4L);
    assertThat(checkpoint.pending()).isEmpty();

    // Committed after the checkpoint and before the job is restored from it: read, not skipped.
    commit(table, 4);
    commit(table, 5);
    assertThat(pollOnceAfterRestore(latest, checkpoint)).containsExactly(4L, 5L);
  }

  @Test
  void aFullReadStreamRestoredBeforeItsFirstPollReadsInFullAtTheRestore() throws Throwable {
    TableLoader table = createAppendTable();
    commit(table, 1, 2);
    TableLoader latestFull = table.withOptions(Map.of("scan.mode", "latest-full"));

    StreamPosition checkpoint;
    try (MockSplitEnumeratorContext<ChangesSplit> context = new MockSplitEnumeratorContext<>(1);
        LockstepStreamEnumerator enumerator = enumerator(context, latestFull, null)) {
      enumerator.start();
      checkpoint = enumerator.snapshotState(1);
    }
    // Nothing was emitted and a position would skip the full read: the checkpoint keeps none.
    assertThat(checkpoint.nextSnapshot()).isNull();

    commit(table, 3);
    try (MockSplitEnumeratorContext<ChangesSplit> context = new MockSplitEnumeratorContext<>(1);
        LockstepStreamEnumerator enumerator = enumerator(context, latestFull, checkpoint)) {
      enumerator.start();
      context.registerReader(new ReaderInfo(0, "localhost"));
      enumerator.addReader(0);
      context.runPeriodicCallable(0);
      List<ChangesSplit> splits = assigned(context);
      // One full read at the restore's latest snapshot: every row committed so far, once.
      assertThat(splits).extracting(ChangesSplit::snapshotId).containsExactly(3L);
      assertThat(splits.get(0).rows()).hasSize(3);
    }
  }

  private List<Long> pollOnceAfterRestore(TableLoader loader, StreamPosition checkpoint)
      throws Throwable {
    try (MockSplitEnumeratorContext<ChangesSplit> context = new MockSplitEnumeratorContext<>(1);
        LockstepStreamEnumerator enumerator = enumerator(context, loader, checkpoint)) {
      enumerator.start();
      context.registerReader(new ReaderInfo(0, "localhost"));
      enumerator.addReader(0);
      context.runPeriodicCallable(0);
      return assigned(context).stream().map(ChangesSplit::snapshotId).toList();
    }
  }

  private static List<ChangesSplit> assigned(MockSplitEnumeratorContext<ChangesSplit> context) {
    return context.getSplitsAssignmentSequence().stream()
        .flatMap(a -> a.assignment().getOrDefault(0, List.of()).stream())
        .toList();
  }

  private static LockstepStreamEnumerator enumerator(
      MockSplitEnumeratorContext<ChangesSplit> context,
      TableLoader loader,
      StreamPosition restored) {
    return new LockstepStreamEnumerator(context, loader, 60_000, row -> true, restored);
  }

  private TableLoader createAppendTable() throws Exception {
    String warehouse = dir.toUri().toString();
    Identifier id = Identifier.parse("db.events");
    try (FileIO io = FileIODiscovery.open(Path.of(warehouse), Map.of())) {
      new FileSystemCatalog(io, Path.of(warehouse), Map.of())
          .createTable(
              id,
              Schema.newBuilder()
                  .column("id", DataType.bigint().notNull())
                  .column("v", DataType.bigint())
                  .build())
          .close();
    }
    return new TableLoader(warehouse, Map.of(), id);
  }

  /** One snapshot per value: a row (value, value). */
  private static void commit(TableLoader loader, long... values) throws Exception {
    try (TableLoader.Opened opened = loader.open()) {
      for (long value : values) {
        try (TableWrite write = opened.table().newWrite("writer")) {
          write.write(GenericRow.of(value, value));
          opened.table().newCommit("writer").commit(value, write.prepareCommit());
        }
      }
    }
  }
}
