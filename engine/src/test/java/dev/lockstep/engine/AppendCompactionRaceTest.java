package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.testing.TestTiming;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An appender and two dedicated compactors race on one append table (issue 20): whatever
 * interleaving the threads take, every appended row is in the table exactly once, each bucket reads
 * its rows in write order, and a stream from snapshot 1 sees every row once. The compactors pick
 * the same small files from the same snapshots, so COMPACT commits whose inputs another commit
 * removed meet a file conflict and are dropped (counted, not asserted: the interleaving decides).
 */
class AppendCompactionRaceTest {

  private static final int COMMITS = 120;
  private static final int ROWS = 6;

  @TempDir Path dir;

  @ParameterizedTest(name = "appender write-only = {0}")
  @ValueSource(booleans = {true, false})
  void anAppenderAndTwoCompactorsNeverLoseOrDuplicateARow(boolean writeOnly) throws Exception {
    Map<String, String> options =
        Map.of(
            "bucket", "2",
            "compaction.min.file-num", "2",
            "compaction.max.file-num", "6",
            "commit.max-retries", "1000",
            "write-only", "true");
    FileStoreTable table = TestTables.appendTable(dir, options);
    FileStoreTable appenderTable =
        table.copyWithOptions(Map.of("write-only", Boolean.toString(writeOnly)));
    AtomicBoolean appending = new AtomicBoolean(true);
    CyclicBarrier start = new CyclicBarrier(3);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    Future<List<String>> appender =
        pool.submit(
            () -> {
              List<String> written = new ArrayList<>();
              try (TableWrite write = appenderTable.newWrite("appender")) {
                TableCommit commit = appenderTable.newCommit("appender");
                start.await();
                for (int c = 1; c <= COMMITS; c++) {
                  for (int i = 0; i < ROWS; i++) {
                    long n = c * 100L + i;
                    write.write(GenericRow.of("appender", n));
                    written.add("appender:" + n);
                  }
                  commit.commit(c, write.prepareCommit());
                }
              } finally {
                appending.set(false);
              }
              return written;
            });
    List<Future<long[]>> compactors = new ArrayList<>();
    for (int k = 0; k < 2; k++) {
      // Created here, so that a compactor that cannot be created fails the test at once.
      TableCompactor created = table.newCompactor("compactor-" + k);
      int full = k + 2;
      compactors.add(
          pool.submit(
              () -> {
                long rounds = 0;
                long committed = 0;
                try (TableCompactor compactor = created) {
                  start.await();
                  // Rounds until the appender is done, then two more.
                  for (int after = 0; after < 2; ) {
                    if (!appending.get()) {
                      after++;
                    }
                    rounds++;
                    Optional<CommitResult> r = compactor.compactOnce(rounds % full == 0);
                    if (r.isPresent() && r.get().compactSnapshotId() > 0) {
                      committed++;
                    } else {
                      Thread.sleep(2);
                    }
                  }
                  return new long[] {rounds, committed, compactor.fileConflicts()};
                }
              }));
    }
    long wait = (long) (5 * TestTiming.FACTOR) + 1;
    List<String> written = appender.get(wait, TimeUnit.MINUTES);
    long committed = 0;
    long conflicts = 0;
    for (Future<long[]> f : compactors) {
      long[] r = f.get(wait, TimeUnit.MINUTES);
      committed += r[1];
      conflicts += r[2];
    }
    pool.shutdown();

    assertThat(written).hasSize(COMMITS * ROWS);
    List<String> read = AppendCompactionTableTest.rows(table);
    assertThat(read).as("every row exactly once").containsExactlyInAnyOrderElementsOf(written);
    for (Split split : table.newScan().plan().splits()) {
      AppendCompactionTableTest.assertWriterOrder(
          table.newRead().read(split).stream().map(AppendCompactionTableTest::text).toList());
    }
    assertThat(AppendCompactionTableTest.count(table, CommitKind.COMPACT))
        .as("COMPACT snapshots")
        .isPositive();
    assertThat(committed).isPositive();

    List<String> streamed = new ArrayList<>();
    StreamTableScan stream =
        table
            .copyWithOptions(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "1"))
            .newStreamScan();
    for (Optional<StreamTableScan.Changes> c = stream.next(); c.isPresent(); c = stream.next()) {
      c.get().rows().forEach(change -> streamed.add(AppendCompactionTableTest.text(change.row())));
    }
    assertThat(streamed)
        .as("a stream from snapshot 1")
        .containsExactlyInAnyOrderElementsOf(written);
    System.out.printf(
        "append race (appender write-only=%s): %d snapshots, %d COMPACT by the compactors,"
            + " %d compactions dropped after a file conflict%n",
        writeOnly, table.snapshotManager().latestId().getAsLong(), committed, conflicts);
  }
}
