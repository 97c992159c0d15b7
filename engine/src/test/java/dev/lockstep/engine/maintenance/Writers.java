package dev.lockstep.engine.maintenance;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writers of a (k INT, v STRING) primary-key table that remember which snapshot each batch landed
 * in, so that the table at any snapshot can be computed: per key, the last write of the batch with
 * the highest snapshot id not above it.
 */
final class Writers {

  /** One committed batch: its APPEND snapshot and its (key, value) writes in order. */
  record Batch(long snapshotId, List<Map.Entry<Integer, String>> writes) {}

  private final List<Batch> batches = new ArrayList<>();

  /** A writer loop until {@code stop}: batches of {@code rows} random keys out of {@code keys}. */
  Callable<Long> writer(
      FileStoreTable table,
      String user,
      int keys,
      int rows,
      CyclicBarrier start,
      AtomicBoolean stop,
      long seed) {
    return () -> {
      Random random = new Random(seed);
      TableCommit commit = table.newCommit(user);
      long identifier = 0;
      try (TableWrite write = table.newWrite(user)) {
        start.await();
        while (!stop.get()) {
          identifier++;
          List<Map.Entry<Integer, String>> writes = new ArrayList<>();
          for (int i = 0; i < rows; i++) {
            int key = random.nextInt(keys);
            String value = user + "/" + identifier + "/" + i;
            writes.add(Map.entry(key, value));
            write.write(GenericRow.of(key, value));
          }
          CommitResult result = commit.commit(identifier, write.prepareCommit());
          record(new Batch(result.dataSnapshotId(), writes));
        }
      }
      return identifier;
    };
  }

  synchronized void record(Batch batch) {
    batches.add(batch);
  }

  /** The merged table at snapshot {@code snapshotId}. */
  synchronized Map<Integer, String> modelAt(long snapshotId) {
    List<Batch> sorted = new ArrayList<>(batches);
    sorted.sort(Comparator.comparingLong(Batch::snapshotId));
    Map<Integer, String> model = new TreeMap<>();
    for (Batch b : sorted) {
      if (b.snapshotId() <= 0) {
        throw new AssertionError("a batch has no snapshot");
      }
      if (b.snapshotId() <= snapshotId) {
        b.writes().forEach(w -> model.put(w.getKey(), w.getValue()));
      }
    }
    return model;
  }

  /** Reads snapshot {@code id} (or the latest when negative) as a key to value map. */
  static Map<Integer, String> read(FileStoreTable table, long id) throws IOException {
    var scan = table.newScan();
    if (id >= 0) {
      scan.withSnapshot(id);
    }
    Map<Integer, String> map = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(scan.plan())) {
      map.put((Integer) row.get(0), (String) row.get(1));
    }
    return map;
  }

  /** Data files that a retained snapshot references but that are gone from the store. */
  static List<String> missingFilesOfRetainedSnapshots(FileStoreTable table) throws IOException {
    List<String> missing = new ArrayList<>();
    long earliest = table.snapshotManager().earliestId().orElse(1);
    long latest = table.snapshotManager().latestId().orElse(0);
    for (long id = earliest; id <= latest; id++) {
      for (ManifestEntry e : table.store().liveFiles(table.snapshotManager().get(id)).values()) {
        var path = table.bucketPath(e.partition(), e.bucket()).child(e.file().fileName());
        if (!table.fileIO().exists(path)) {
          missing.add("snapshot " + id + ": " + path);
        }
      }
    }
    return missing;
  }

  /** Waits scale with this factor ({@code -Dlockstep.test.timing}). */
  static long scaled(long millis) {
    return (long) (millis * Math.max(1, TestTiming.FACTOR));
  }
}
