package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrent writers and compactions on one primary-key bucket for {@code lockstep.stress.seconds}
 * (default 20): no exception reaches a writer, no writer restarts, and the table equals the
 * expected key-to-value map exactly.
 */
class ConcurrentCompactionTest {

  @TempDir Path dir;

  @Test
  void twoCompactingWritersOnOneBucket() throws Exception {
    TestTables.keyValueTable(dir, Map.of("num-sorted-run.compaction-trigger", "2"));
    AtomicBoolean stop = new AtomicBoolean();
    CyclicBarrier start = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<KeyValueWorkload>> futures = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      FileStoreTable table = load();
      futures.add(pool.submit(new KeyValueWorkload(table, "writer-" + w, 200, 30, start, stop, w)));
    }
    List<KeyValueWorkload> workloads = finish(stop, pool, futures);

    FileStoreTable table = load();
    assertThat(TestTables.readKeyValues(table)).isEqualTo(KeyValueWorkload.expected(workloads));
    assertThat(count(table, CommitKind.COMPACT)).as("compactions committed").isPositive();
    long dropped = workloads.stream().mapToLong(w -> w.droppedCompactions).sum();
    System.out.printf(
        "%d snapshots, %d compactions dropped after a file conflict, at most %d"
            + " snapshot conflicts in one commit%n",
        table.snapshotManager().latestId().getAsLong(),
        dropped,
        workloads.stream().mapToInt(w -> w.maxRetries).max().orElse(0));
  }

  @Test
  void fourWriteOnlyWritersAndOneCompactionLoopNeverConflict() throws Exception {
    TestTables.catalog(dir)
        .createTable(
            new Identifier("db", "kv"),
            dev.lockstep.engine.schema.Schema.newBuilder()
                .column("k", dev.lockstep.engine.types.DataType.intType())
                .column("v", dev.lockstep.engine.types.DataType.string())
                .primaryKey("k")
                .option("num-sorted-run.compaction-trigger", "3")
                .build());
    AtomicBoolean stop = new AtomicBoolean();
    CyclicBarrier start = new CyclicBarrier(5);
    ExecutorService pool = Executors.newFixedThreadPool(5);
    List<Future<KeyValueWorkload>> futures = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      FileStoreTable writerTable = load().copyWithOptions(Map.of("write-only", "true"));
      futures.add(
          pool.submit(new KeyValueWorkload(writerTable, "writer-" + w, 300, 20, start, stop, w)));
    }
    TableCompactor compactor = load().newCompactor("compactor");
    Future<Long> compactions =
        pool.submit(
            () -> {
              long committed = 0;
              start.await();
              while (!stop.get()) {
                Optional<CommitResult> result = compactor.compactOnce(false);
                if (result.isPresent() && result.get().compactSnapshotId() > 0) {
                  committed++;
                } else {
                  Thread.sleep(5);
                }
              }
              return committed;
            });
    List<KeyValueWorkload> workloads = finish(stop, pool, futures);
    long committed = compactions.get(1, TimeUnit.MINUTES);
    compactor.close();

    FileStoreTable table = load();
    assertThat(TestTables.readKeyValues(table)).isEqualTo(KeyValueWorkload.expected(workloads));
    assertThat(compactor.fileConflicts()).as("compactor file conflicts").isZero();
    assertThat(workloads).allSatisfy(w -> assertThat(w.fileConflicts).isZero());
    assertThat(committed).as("compactions committed").isPositive();
    assertThat(count(table, CommitKind.COMPACT)).isEqualTo(committed);
    System.out.printf(
        "write-only: %d snapshots, %d compactions, at most %d snapshot conflicts in"
            + " one commit%n",
        table.snapshotManager().latestId().getAsLong(),
        committed,
        workloads.stream().mapToInt(w -> w.maxRetries).max().orElse(0));
  }

  private FileStoreTable load() throws Exception {
    return TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
  }

  private static List<KeyValueWorkload> finish(
      AtomicBoolean stop, ExecutorService pool, List<Future<KeyValueWorkload>> futures)
      throws Exception {
    Thread.sleep(TestTables.stressMillis());
    stop.set(true);
    List<KeyValueWorkload> workloads = new ArrayList<>();
    for (Future<KeyValueWorkload> f : futures) {
      // Any exception inside a writer fails the test here.
      workloads.add(f.get((long) (2 * TestTiming.FACTOR) + 1, TimeUnit.MINUTES));
    }
    pool.shutdown();
    return workloads;
  }

  private static long count(FileStoreTable table, CommitKind kind) throws Exception {
    long count = 0;
    for (long id = 1; id <= table.snapshotManager().latestId().getAsLong(); id++) {
      if (table.snapshotManager().get(id).commitKind() == kind) {
        count++;
      }
    }
    return count;
  }
}
