package dev.lockstep.engine.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.table.FileStoreTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four writers commit and compact (each expiring after its commits, as writers that are not
 * write-only do), one more thread expires in a loop, and a reader plans and reads the latest
 * snapshot in a loop, all for half of {@code lockstep.stress.seconds}. Retention is short (a few
 * snapshots, about a second) so that hundreds of snapshots and their files are deleted under the
 * reader's feet.
 *
 * <p>Invariants: the reader never meets a missing file; every read equals the model at the snapshot
 * it planned on; no retained snapshot references a missing file; the final table equals the model.
 */
class ExpireWhileWritingTest {

  @TempDir Path dir;

  @Test
  void readersNeverMeetAMissingFileWhileSnapshotsExpire() throws Exception {
    long retainMillis = Writers.scaled(1000);
    TestTables.keyValueTable(
        dir,
        Map.of(
            "num-sorted-run.compaction-trigger", "2",
            "commit.max-retries", "200",
            "snapshot.num-retained.min", "3",
            "snapshot.time-retained", retainMillis + " ms",
            "snapshot.expire.limit", "50"));
    Writers writers = new Writers();
    AtomicBoolean stop = new AtomicBoolean();
    CyclicBarrier start = new CyclicBarrier(6);
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<Long>> writing = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      writing.add(pool.submit(writers.writer(load(), "writer-" + w, 300, 20, start, stop, w)));
    }
    ConcurrentLinkedQueue<String> readerErrors = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> storeErrors = new ConcurrentLinkedQueue<>();
    List<Map.Entry<Long, Map<Integer, String>>> reads = new ArrayList<>();
    Future<?> reader =
        pool.submit(
            () -> {
              FileStoreTable table = load();
              start.await();
              for (long n = 0; !stop.get(); n++) {
                try {
                  var plan = table.newScan().plan();
                  var rows = new java.util.TreeMap<Integer, String>();
                  for (var row : table.newRead().readAll(plan)) {
                    rows.put((Integer) row.get(0), (String) row.get(1));
                  }
                  if (n % 5 == 0 && reads.size() < 2000) {
                    reads.add(Map.entry(plan.snapshotId(), rows));
                  }
                } catch (java.io.FileNotFoundException | java.nio.file.NoSuchFileException e) {
                  readerErrors.add(e.toString());
                } catch (java.io.IOException e) {
                  // Not a missing file: a store error (LocalFileIO.list can fail transiently under
                  // heavy
                  // load, see the README); the next read plans again.
                  storeErrors.add(e.toString());
                }
              }
              return null;
            });
    AtomicLong expiredByLoop = new AtomicLong();
    Future<?> expirer =
        pool.submit(
            () -> {
              FileStoreTable table = load();
              start.await();
              while (!stop.get()) {
                expiredByLoop.addAndGet(new SnapshotExpiration(table).expire().expiredSnapshots());
                Thread.sleep(20);
              }
              return null;
            });

    Thread.sleep(Math.max(4000, TestTables.stressMillis() / 2));
    stop.set(true);
    long commits = 0;
    for (Future<Long> f : writing) {
      commits += f.get(Writers.scaled(120), TimeUnit.SECONDS);
    }
    reader.get(Writers.scaled(60), TimeUnit.SECONDS);
    expirer.get(Writers.scaled(60), TimeUnit.SECONDS);
    pool.shutdown();

    FileStoreTable table = load();
    long earliest = table.snapshotManager().earliestId().getAsLong();
    long latest = table.snapshotManager().latestId().getAsLong();
    System.out.printf(
        "%d commits, snapshots %d..%d retained, %d expired by the loop, %d reads,"
            + " other store errors %s%n",
        commits, earliest, latest, expiredByLoop.get(), reads.size(), storeErrors);
    assertThat(readerErrors).as("missing files met by the reader").isEmpty();
    assertThat(reads).as("reads").hasSizeGreaterThan(10);
    assertThat(earliest).as("earliest snapshot after the run").isGreaterThan(20);
    assertThat(Writers.missingFilesOfRetainedSnapshots(table)).isEmpty();
    for (Map.Entry<Long, Map<Integer, String>> read : reads) {
      assertThat(read.getValue())
          .as("read of snapshot " + read.getKey())
          .isEqualTo(writers.modelAt(read.getKey()));
    }
    assertThat(Writers.read(table, -1)).isEqualTo(writers.modelAt(latest));
  }

  private FileStoreTable load() throws java.io.IOException {
    return TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
  }
}
