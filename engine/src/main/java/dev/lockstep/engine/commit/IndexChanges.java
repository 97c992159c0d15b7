package dev.lockstep.engine.commit;

import dev.lockstep.engine.index.BucketAssigner;
import dev.lockstep.engine.index.IntIntMap;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.write.CommitMessage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The key-hash assignments of one dynamic-bucket commit: the hashes its messages newly assigned (by
 * partition: hash → bucket), the index files written for them, and which committed index files have
 * been checked against them.
 *
 * <p>{@link #check} reads the index files of a snapshot that were not checked yet (those committed
 * since the writers' base snapshot) and fails with {@link IndexConflictException} when one of them
 * puts a hash of ours into another bucket. The commit loop calls it on the snapshot it first tries
 * and on every snapshot it catches up with, so when the commit publishes on snapshot N, every index
 * file of N has been checked: no hash is then in two buckets.
 */
final class IndexChanges {

  private final TableStore table;
  private final Map<String, IntIntMap> ours = new HashMap<>();
  private final List<IndexFileMeta> files = new ArrayList<>();
  private final Set<String> checked = new HashSet<>();

  private IndexChanges(TableStore table) {
    this.table = table;
  }

  /**
   * The assignments of {@code messages}, their index files written now; empty when none assigns a
   * hash.
   */
  static Optional<IndexChanges> write(TableStore table, List<CommitMessage> messages)
      throws IOException {
    IndexChanges changes = new IndexChanges(table);
    long base = Long.MAX_VALUE;
    for (CommitMessage m : messages) {
      int[] hashes = m.indexHashes();
      if (hashes.length == 0) {
        continue;
      }
      base = Math.min(base, m.baseSnapshotId());
      IntIntMap map = changes.ours.computeIfAbsent(m.partition(), p -> new IntIntMap());
      for (int h : hashes) {
        int earlier = map.put(h, m.bucket());
        if (earlier >= 0 && earlier != m.bucket()) {
          // Two batches of one writer, each prepared from the committed index, can assign a key
          // to different buckets; committed together, nothing would re-route one of them and the
          // key would live in two buckets. Committed one batch per commit, the second meets the
          // first's index file and re-routes (KeyRerouter).
          throw new CommitFailedException(
              "Key hash "
                  + h
                  + " of partition '"
                  + m.partition()
                  + "' is assigned to two buckets ("
                  + earlier
                  + " and "
                  + m.bucket()
                  + ") by the messages of one commit of "
                  + table.fullName()
                  + ": batches prepared from the same committed index. Commit each batch"
                  + " (each prepareCommit's messages) on its own; nothing was committed.");
        }
      }
    }
    if (changes.ours.isEmpty()) {
      return Optional.empty();
    }
    try {
      for (Map.Entry<String, IntIntMap> p : changes.ours.entrySet()) {
        Map<Integer, int[]> buckets = new LinkedHashMap<>();
        Map<Integer, Integer> sizes = new HashMap<>();
        p.getValue().forEach((h, b) -> sizes.merge(b, 1, Integer::sum));
        Map<Integer, Integer> filled = new HashMap<>();
        p.getValue()
            .forEach(
                (h, b) -> {
                  int[] arr = buckets.computeIfAbsent(b, k -> new int[sizes.get(k)]);
                  int i = filled.merge(b, 1, Integer::sum) - 1;
                  arr[i] = h;
                });
        for (Map.Entry<Integer, int[]> b : buckets.entrySet()) {
          int[] hashes = b.getValue();
          java.util.Arrays.sort(hashes);
          changes.files.add(
              table.indexManifest().writeHashes(p.getKey(), b.getKey(), hashes, hashes.length));
        }
      }
    } catch (IOException | RuntimeException e) {
      changes.deleteFiles();
      throw e;
    }
    // The index files of the writers' base were loaded by the writers: no need to check them.
    if (base > 0) {
      Optional<Snapshot> baseSnapshot = table.snapshotManager().find(base);
      if (baseSnapshot.isPresent()) {
        for (IndexFileMeta f : table.indexManifest().read(baseSnapshot.get().indexManifest())) {
          changes.checked.add(f.fileName());
        }
      }
    }
    return Optional.of(changes);
  }

  /** The index files of this commit. */
  List<IndexFileMeta> files() {
    return files;
  }

  /**
   * Checks the index files of {@code snapshot} not checked yet against this commit's assignments.
   */
  void check(Snapshot snapshot) throws IOException {
    if (snapshot == null || snapshot.indexManifest() == null) {
      return;
    }
    Map<String, IntIntMap> winners = new HashMap<>();
    int[] count = {0};
    for (Map.Entry<String, List<IndexFileMeta>> p :
        BucketAssigner.byPartition(table, snapshot).entrySet()) {
      IntIntMap mine = ours.get(p.getKey());
      for (IndexFileMeta f : p.getValue()) {
        if (!checked.add(f.fileName()) || mine == null) {
          continue;
        }
        for (int h : table.indexManifest().readHashes(f.fileName())) {
          int b = mine.get(h);
          if (b >= 0 && b != f.bucket()) {
            if (winners.computeIfAbsent(p.getKey(), k -> new IntIntMap()).put(h, f.bucket()) < 0) {
              count[0]++;
            }
          }
        }
      }
    }
    if (!winners.isEmpty()) {
      throw new IndexConflictException(winners, count[0], snapshot.id());
    }
  }

  /** Deletes this commit's index files (never published). */
  void deleteFiles() {
    for (IndexFileMeta f : files) {
      table.indexManifest().deleteQuietly(f.fileName());
    }
  }
}
