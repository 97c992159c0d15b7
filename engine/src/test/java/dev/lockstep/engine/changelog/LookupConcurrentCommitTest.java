package dev.lockstep.engine.changelog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lookup} under racing committers: four writers with overlapping keys in one bucket commit
 * at once (snapshot conflicts, retries on new bases); the changelog of every snapshot is still
 * exact: each {@code -U}/{@code -D} carries the key's value at the snapshot before, and applying
 * snapshots 1..n gives the table at n.
 */
class LookupConcurrentCommitTest {

  @TempDir Path dir;

  @Test
  void racingCommitsKeepTheChangelogExact() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir,
            Map.of(
                "changelog-producer", "lookup",
                "commit.max-retries", "200",
                // Racing committers, as in separate processes: in one JVM they would take turns.
                "commit.in-process-turns", "false",
                "snapshot.num-retained.min", "100000",
                "snapshot.num-retained.max", "100000"));
    int writers = 4;
    int rounds = 25;
    CyclicBarrier barrier = new CyclicBarrier(writers);
    AtomicLong retries = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      futures.add(
          pool.submit(
              () -> {
                Random random = new Random(writer);
                String user = "w" + writer;
                TableCommit commit = table.newCommit(user);
                try (TableWrite write = table.newWrite(user)) {
                  for (int round = 1; round <= rounds; round++) {
                    for (int i = 0; i < 5; i++) {
                      int key = random.nextInt(12);
                      if (random.nextInt(4) == 0) {
                        write.write(RowKind.DELETE, GenericRow.of(key, null));
                      } else {
                        write.write(GenericRow.of(key, user + "-" + round + "-" + i));
                      }
                    }
                    var messages = write.prepareCommit();
                    barrier.await();
                    CommitResult result = commit.commit(round, messages);
                    retries.addAndGet(result.retries());
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    Map<Integer, String> applied = new TreeMap<>();
    StreamTableScan stream = table.copyWithOptions(Map.of("scan.snapshot-id", "1")).newStreamScan();
    for (Optional<Changes> c = stream.next(); c.isPresent(); c = stream.next()) {
      ChangelogPropertyTest.apply("lookup", applied, c.get());
    }
    assertThat(applied).isEqualTo(TestTables.readKeyValues(table));
    // The race happened: some commit was retried on a newer base.
    assertThat(retries.get()).as("snapshot conflicts").isPositive();
  }
}
