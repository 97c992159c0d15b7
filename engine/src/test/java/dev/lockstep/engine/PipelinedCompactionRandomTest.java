package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A streaming writer's rhythm (each batch committed while the next one is written, after its
 * refresh) with the next compaction planned on the handed-out ones, against a dedicated compactor
 * of the same buckets, deletes, and batches that are aborted instead of committed: after every
 * commit the table reads back the model of the committed batches, every compaction the committer
 * dropped left no output file, and some compactions of the writer land.
 */
class PipelinedCompactionRandomTest {

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void theTableReadsBackTheCommittedBatches(long seed) throws Exception {
    TestTables.inTempDirectory("pipelined-random", dir -> run(dir, seed));
  }

  private static void run(java.nio.file.Path dir, long seed) throws Exception {
    Random random = new Random(seed);
    FileStoreTable table =
        TestTables.keyValueTable(
            dir,
            Map.of(
                "bucket", "2",
                "num-sorted-run.compaction-trigger", String.valueOf(2 + random.nextInt(2)),
                "num-sorted-run.stop-trigger", "3"));
    TreeMap<Integer, String> model = new TreeMap<>();
    int writerCompactionsLanded = 0;
    try (TableWrite write = table.newWrite("u");
        TableCommit commit = table.newCommit("u");
        TableCompactor compactor = table.newCompactor("c")) {
      List<CommitMessage> previous = null;
      TreeMap<Integer, String> previousBatch = null;
      long id = 0;
      for (int batch = 1; batch <= 30; batch++) {
        TreeMap<Integer, String> rows = new TreeMap<>();
        int n = 20 + random.nextInt(60);
        for (int i = 0; i < n; i++) {
          if (i == 1 && previous != null) {
            // The previous batch settles after this one's refresh: committed, or aborted.
            id++;
            if (random.nextInt(8) == 0) {
              commit.abort(id, previous);
              for (CommitMessage m : previous) {
                for (DataFileMeta f : m.compactAfter()) {
                  assertThat(exists(table, m, f)).isFalse();
                }
              }
            } else {
              CommitResult r = commit.commit(id, previous);
              apply(model, previousBatch);
              checkDropped(table, previous, r);
              if (r.compactSnapshotId() > 0) {
                writerCompactionsLanded++;
              }
            }
            assertThat(TestTables.readKeyValues(table)).isEqualTo(model);
            previous = null;
          }
          int k = random.nextInt(150);
          if (random.nextInt(6) == 0) {
            write.delete(GenericRow.of(k, "gone"));
            rows.put(k, null);
          } else {
            String v = "s" + seed + "-b" + batch + "-" + i;
            write.write(GenericRow.of(k, v));
            rows.put(k, v);
          }
          if (random.nextInt(15) == 0) {
            write.flush();
          }
        }
        if (random.nextInt(4) == 0) {
          compactor.compactOnce(random.nextInt(3) == 0);
          assertThat(TestTables.readKeyValues(table)).isEqualTo(model);
        }
        previous = write.prepareCommit();
        previousBatch = rows;
      }
      id++;
      CommitResult r = commit.commit(id, previous);
      apply(model, previousBatch);
      checkDropped(table, previous, r);
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(model);
    assertThat(writerCompactionsLanded).as("the writer's compactions that landed").isPositive();
  }

  private static void apply(TreeMap<Integer, String> model, TreeMap<Integer, String> batch) {
    batch.forEach(
        (k, v) -> {
          if (v == null) {
            model.remove(k);
          } else {
            model.put(k, v);
          }
        });
  }

  /** The outputs of the compactions the committer dropped are gone. */
  private static void checkDropped(
      FileStoreTable table, List<CommitMessage> messages, CommitResult result) throws Exception {
    List<String> dropped = new ArrayList<>();
    result.droppedCompactions().forEach(b -> dropped.add(b.partition() + "/" + b.bucket()));
    for (CommitMessage m : messages) {
      if (dropped.contains(m.partition() + "/" + m.bucket())) {
        for (DataFileMeta f : m.compactAfter()) {
          assertThat(exists(table, m, f)).as("dropped output %s", f.fileName()).isFalse();
        }
      }
    }
  }

  private static boolean exists(FileStoreTable table, CommitMessage m, DataFileMeta f)
      throws java.io.IOException {
    return table.fileIO().exists(table.bucketPath(m.partition(), m.bucket()).child(f.fileName()));
  }
}
