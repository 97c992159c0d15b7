package dev.lockstep.engine.deletionvectors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deletion vectors under racing committers: three writers with overlapping keys in one bucket (and
 * their own compactions) commit at once, so commits lose races and retry on newer bases; every
 * snapshot of the history still reads, with its vectors, exactly as its merge read.
 */
class DeletionVectorRacingCommitsTest {

  @TempDir Path dir;

  @Test
  void racingCommitsKeepEverySnapshotsVectorsExact() throws Exception {
    FileStoreTable table =
        DeletionVectorTables.create(
            dir,
            "race",
            Map.of(
                "deletion-vectors.enabled", "true",
                "num-sorted-run.compaction-trigger", "3",
                "commit.max-retries", "200",
                // Racing committers, as in separate processes: in one JVM they would take turns.
                "commit.in-process-turns", "false",
                "snapshot.num-retained.min", "100000",
                "snapshot.num-retained.max", "100000"));
    int writers = 3;
    int rounds = 15;
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
                    for (int i = 0; i < 6; i++) {
                      int key = random.nextInt(15);
                      if (random.nextInt(4) == 0) {
                        write.write(RowKind.DELETE, GenericRow.of(key, null, 0L));
                      } else {
                        write.write(GenericRow.of(key, user + "-" + round + "-" + i, 0L));
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
    assertThat(retries.get()).as("snapshot conflicts").isPositive();
    for (long id : DeletionVectorTables.snapshotIds(table)) {
      DeletionVectorTables.assertCovered(table, table.snapshotManager().get(id));
      assertThat(DeletionVectorTables.read(table, id))
          .as("snapshot %d", id)
          .isEqualTo(DeletionVectorTables.mergeRead(table, id));
    }
    table.close();
  }
}
