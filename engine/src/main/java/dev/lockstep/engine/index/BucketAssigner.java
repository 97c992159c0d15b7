package dev.lockstep.engine.index;

import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Routes keys of a dynamic-bucket table ({@code bucket = -1}) to buckets, for one writer.
 *
 * <ul>
 *   <li>A key hash in the committed index of the writer's base snapshot goes to its bucket there
 *       (the index never moves a hash).
 *   <li>A new hash goes to a bucket with room: {@code hash mod dynamic-bucket.initial-buckets} if
 *       that one holds fewer than {@code dynamic-bucket.target-row-num} hashes, else the lowest
 *       bucket with room, else a new bucket while fewer than {@code dynamic-bucket.max-buckets}
 *       exist, else the least-filled bucket (writes are never refused). The choice depends only on
 *       the committed index and this batch, so writers on the same base mostly agree.
 *   <li>The batch's new assignments go into the commit messages ({@code
 *       CommitMessage.indexHashes}); the committer checks them against what other commits assigned
 *       meanwhile. They are forgotten at the next batch, which loads the committed index again
 *       (incrementally: only index files not loaded yet).
 * </ul>
 *
 * Not thread-safe.
 */
public final class BucketAssigner {

  private final TableStore table;
  private final long target;
  private final int initial;
  private final int max;
  private final Map<String, Partition> partitions = new HashMap<>();
  private Map<String, List<IndexFileMeta>> committed = Map.of();

  public BucketAssigner(TableStore table) {
    this.table = table;
    CoreOptions options = table.options();
    this.target = options.dynamicBucketTargetRowNum();
    this.initial = options.dynamicBucketInitialBuckets();
    this.max = options.dynamicBucketMaxBuckets();
  }

  /** Starts a batch on {@code base} ({@code null}: an empty table): forgets the batch's hashes. */
  public void refresh(Snapshot base) throws IOException {
    committed = byPartition(table, base);
    for (Map.Entry<String, Partition> p : partitions.entrySet()) {
      p.getValue().batch = new IntIntMap();
      p.getValue().batchCounts = new int[0];
      p.getValue().load(committed.getOrDefault(p.getKey(), List.of()));
    }
  }

  /** The bucket of a key with hash {@code hash} in {@code partition}. */
  public int assign(String partition, int hash) throws IOException {
    Partition p = partitions.get(partition);
    if (p == null) {
      p = new Partition();
      p.load(committed.getOrDefault(partition, List.of()));
      partitions.put(partition, p);
    }
    int b = p.index.get(hash);
    if (b >= 0) {
      return b;
    }
    b = p.batch.get(hash);
    if (b >= 0) {
      return b;
    }
    b = choose(p, hash);
    p.batch.put(hash, b);
    if (b >= p.batchCounts.length) {
      p.batchCounts = Arrays.copyOf(p.batchCounts, Math.max(b + 1, p.batchCounts.length * 2));
    }
    p.batchCounts[b]++;
    return b;
  }

  private int choose(Partition p, int hash) {
    int open = Math.max(Math.min(initial, max), Math.max(p.index.bucketCount(), p.batchCounts()));
    int preferred = Math.floorMod(hash, Math.min(initial, max));
    if (p.count(preferred) < target) {
      return preferred;
    }
    for (int b = 0; b < open; b++) {
      if (p.count(b) < target) {
        return b;
      }
    }
    if (open < max) {
      return open;
    }
    int least = 0;
    for (int b = 1; b < open; b++) {
      if (p.count(b) < p.count(least)) {
        least = b;
      }
    }
    return least;
  }

  /** The hashes this batch newly assigned to {@code bucket} of {@code partition}. */
  public int[] newHashes(String partition, int bucket) {
    Partition p = partitions.get(partition);
    if (p == null) {
      return new int[0];
    }
    int n = bucket < p.batchCounts.length ? p.batchCounts[bucket] : 0;
    int[] out = new int[n];
    int[] k = {0};
    p.batch.forEach(
        (h, b) -> {
          if (b == bucket) {
            out[k[0]++] = h;
          }
        });
    return out;
  }

  /** The committed index of {@code partition} as loaded (for tests and measurements). */
  public HashIndex index(String partition) {
    Partition p = partitions.get(partition);
    return p == null ? null : p.index;
  }

  /** The index files of {@code snapshot}, by partition ({@code null}: none). */
  public static Map<String, List<IndexFileMeta>> byPartition(TableStore table, Snapshot snapshot)
      throws IOException {
    if (snapshot == null || snapshot.indexManifest() == null) {
      return Map.of();
    }
    Map<String, List<IndexFileMeta>> out = new HashMap<>();
    for (IndexFileMeta e : table.indexManifest().read(snapshot.indexManifest())) {
      if (e.indexType().equals(IndexFileMeta.HASH)) {
        out.computeIfAbsent(e.partition(), k -> new ArrayList<>()).add(e);
      }
    }
    return out;
  }

  private final class Partition {
    final HashIndex index = new HashIndex();
    final Set<String> loaded = new HashSet<>();
    IntIntMap batch = new IntIntMap();
    int[] batchCounts = new int[0];

    void load(List<IndexFileMeta> files) throws IOException {
      for (IndexFileMeta f : files) {
        if (loaded.add(f.fileName())) {
          for (int h : table.indexManifest().readHashes(f.fileName())) {
            index.putIfAbsent(h, f.bucket());
          }
        }
      }
    }

    int count(int bucket) {
      return index.count(bucket) + (bucket < batchCounts.length ? batchCounts[bucket] : 0);
    }

    int batchCounts() {
      for (int b = batchCounts.length - 1; b >= 0; b--) {
        if (batchCounts[b] > 0) {
          return b + 1;
        }
      }
      return 0;
    }
  }
}
