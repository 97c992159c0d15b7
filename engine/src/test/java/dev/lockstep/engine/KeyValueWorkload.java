package dev.lockstep.engine;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One writer of a (k INT, v STRING) primary-key table in a loop: random keys, unique values, one
 * commit per batch. It remembers which snapshot each batch landed in, so that the expected table is
 * "per key, the last write of the batch with the highest snapshot id".
 */
final class KeyValueWorkload implements Callable<KeyValueWorkload> {

  /** One committed batch: its APPEND snapshot and its writes in order. */
  record Batch(long snapshotId, List<int[]> writes, String user) {}

  final List<Batch> batches = new ArrayList<>();
  long droppedCompactions;
  int maxRetries;
  long fileConflicts;
  private final FileStoreTable table;
  private final String user;
  private final int keys;
  private final int writesPerBatch;
  private final CyclicBarrier start;
  private final AtomicBoolean stop;
  private final Random random;

  KeyValueWorkload(
      FileStoreTable table,
      String user,
      int keys,
      int writesPerBatch,
      CyclicBarrier start,
      AtomicBoolean stop,
      long seed) {
    this.table = table;
    this.user = user;
    this.keys = keys;
    this.writesPerBatch = writesPerBatch;
    this.start = start;
    this.stop = stop;
    this.random = new Random(seed);
  }

  @Override
  public KeyValueWorkload call() throws Exception {
    TableCommit commit = table.newCommit(user);
    try (TableWrite write = table.newWrite(user)) {
      start.await();
      for (long identifier = 1; !stop.get(); identifier++) {
        List<int[]> writes = new ArrayList<>();
        for (int i = 0; i < writesPerBatch; i++) {
          int key = random.nextInt(keys);
          writes.add(new int[] {key, i});
          write.write(GenericRow.of(key, value(identifier, i)));
        }
        CommitResult result = commit.commit(identifier, write.prepareCommit());
        batches.add(new Batch(result.dataSnapshotId(), writes, user + "/" + identifier));
        droppedCompactions += result.droppedCompactions().size();
        maxRetries = Math.max(maxRetries, result.retries());
      }
    } finally {
      fileConflicts = commit.fileConflicts();
    }
    return this;
  }

  private String value(long identifier, int i) {
    return user + "/" + identifier + "/" + i;
  }

  /** The table every workload's batches add up to, applied in snapshot order. */
  static Map<Integer, String> expected(Collection<KeyValueWorkload> workloads) {
    List<Batch> all = new ArrayList<>();
    workloads.forEach(w -> all.addAll(w.batches));
    all.sort(Comparator.comparingLong(Batch::snapshotId));
    Map<Integer, String> expected = new TreeMap<>();
    for (Batch batch : all) {
      if (batch.snapshotId() <= 0) {
        throw new AssertionError("Batch " + batch.user() + " has no snapshot");
      }
      for (int[] w : batch.writes()) {
        expected.put(w[0], batch.user() + "/" + w[1]);
      }
    }
    return expected;
  }
}
