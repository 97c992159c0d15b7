package dev.lockstep.engine.scan;

import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A committer's copy of the live files of the snapshot it last built on, by partition, moved
 * forward in memory: the file set of snapshot N is that of N - 1 with N's delta applied (every
 * snapshot is built on its parent, whatever its base and prior lists), so moving from the cached
 * snapshot to a newer one reads only the deltas in between (their manifests are cached by name). A
 * reload from the full manifests happens on the first use, after more than {@value #MAX_STEPS}
 * snapshots, when a snapshot in between is gone (expired) or is not linked to the one before it.
 * Not thread-safe (one per {@code TableCommit}).
 *
 * <p>The files are kept by partition and bucket, with the count of files per bucket count of each
 * partition, so that a commit's check against the live files ({@link #index}) looks only at the
 * files it deletes, the buckets it adds leveled files to and the bucket counts of its partitions:
 * O(what the commit changes), not O(the live files of its partitions), which for an unpartitioned
 * table are all of them (issue 20).
 */
public final class LiveFileCache {

  /**
   * The live files of one snapshot, for checks that look only at what a commit touches. Valid until
   * the cache moves on.
   */
  public interface Index {

    /** Whether the file is live. */
    boolean contains(ManifestEntry.FileId id);

    /** The distinct bucket counts the live files of {@code partition} were written with. */
    Set<Integer> totalBuckets(String partition);

    /** The live files of one bucket. */
    Collection<ManifestEntry> files(String partition, int bucket);

    /** The live files of one partition (for an error message: every one of them is visited). */
    List<ManifestEntry> files(String partition);
  }

  /** One partition's live files, by bucket, and how many were written with each bucket count. */
  private static final class Partition {
    final Map<Integer, Map<ManifestEntry.FileId, ManifestEntry>> byBucket = new HashMap<>();
    final Map<Integer, Integer> totalBuckets = new HashMap<>();

    void add(ManifestEntry e) {
      if (byBucket.computeIfAbsent(e.bucket(), b -> new HashMap<>()).put(e.id(), e) == null) {
        totalBuckets.merge(e.totalBuckets(), 1, Integer::sum);
      }
    }

    void remove(ManifestEntry.FileId id) {
      Map<ManifestEntry.FileId, ManifestEntry> files = byBucket.get(id.bucket());
      ManifestEntry removed = files == null ? null : files.remove(id);
      if (removed != null) {
        totalBuckets.computeIfPresent(removed.totalBuckets(), (k, n) -> n == 1 ? null : n - 1);
        if (files.isEmpty()) {
          byBucket.remove(id.bucket());
        }
      }
    }

    List<ManifestEntry> all() {
      List<ManifestEntry> all = new ArrayList<>();
      byBucket.values().forEach(files -> all.addAll(files.values()));
      return all;
    }
  }

  /** An {@link Index} over partitions' files. */
  private static final class PartitionIndex implements Index {
    private final Map<String, Partition> byPartition;

    PartitionIndex(Map<String, Partition> byPartition) {
      this.byPartition = byPartition;
    }

    @Override
    public boolean contains(ManifestEntry.FileId id) {
      Partition p = byPartition.get(id.partition());
      Map<ManifestEntry.FileId, ManifestEntry> files =
          p == null ? null : p.byBucket.get(id.bucket());
      return files != null && files.containsKey(id);
    }

    @Override
    public Set<Integer> totalBuckets(String partition) {
      Partition p = byPartition.get(partition);
      return p == null ? Set.of() : p.totalBuckets.keySet();
    }

    @Override
    public Collection<ManifestEntry> files(String partition, int bucket) {
      Partition p = byPartition.get(partition);
      Map<ManifestEntry.FileId, ManifestEntry> files = p == null ? null : p.byBucket.get(bucket);
      return files == null ? List.of() : files.values();
    }

    @Override
    public List<ManifestEntry> files(String partition) {
      Partition p = byPartition.get(partition);
      return p == null ? List.of() : p.all();
    }
  }

  private static final Index EMPTY = new PartitionIndex(Map.of());

  /** An {@link Index} of {@code live}, a collection of live files (ADD entries). */
  public static Index index(Collection<ManifestEntry> live) {
    Map<String, Partition> byPartition = new HashMap<>();
    apply(byPartition, live);
    return new PartitionIndex(byPartition);
  }

  static final int MAX_STEPS = 100;

  private final TableStore table;
  private final FileStoreScan scan;
  private Snapshot at;
  private Map<String, Partition> byPartition = new HashMap<>();

  public LiveFileCache(TableStore table) {
    this.table = table;
    this.scan = new FileStoreScan(table);
  }

  /** The live files of {@code snapshot} in {@code partitions} ({@code null}: none). */
  public List<ManifestEntry> liveFiles(Snapshot snapshot, Collection<String> partitions)
      throws IOException {
    if (snapshot == null) {
      return List.of();
    }
    moveTo(snapshot);
    List<ManifestEntry> live = new ArrayList<>();
    for (String partition : partitions) {
      Partition files = byPartition.get(partition);
      if (files != null) {
        live.addAll(files.all());
      }
    }
    return live;
  }

  /**
   * The live files of {@code snapshot} ({@code null}: none), indexed (see {@link Index}); valid
   * until the next call of this cache.
   */
  public Index index(Snapshot snapshot) throws IOException {
    if (snapshot == null) {
      return EMPTY;
    }
    moveTo(snapshot);
    return new PartitionIndex(byPartition);
  }

  private void moveTo(Snapshot target) throws IOException {
    if (at != null && at.id() == target.id() && at.commitId().equals(target.commitId())) {
      return;
    }
    if (at != null && at.id() < target.id() && target.id() - at.id() <= MAX_STEPS) {
      List<List<ManifestEntry>> deltas = deltasBetween(at, target);
      if (deltas != null) {
        for (List<ManifestEntry> delta : deltas) {
          apply(byPartition, delta);
        }
        at = target;
        return;
      }
    }
    Map<String, Partition> fresh = new HashMap<>();
    apply(fresh, new ArrayList<>(scan.liveFiles(target).values()));
    byPartition = fresh;
    at = target;
  }

  /** The deltas of the snapshots after {@code from} up to {@code to}, or null when not a chain. */
  private List<List<ManifestEntry>> deltasBetween(Snapshot from, Snapshot to) throws IOException {
    List<List<ManifestEntry>> deltas = new ArrayList<>();
    Snapshot previous = from;
    try {
      for (long id = from.id() + 1; id <= to.id(); id++) {
        Optional<Snapshot> next =
            id == to.id() ? Optional.of(to) : table.snapshotManager().find(id);
        if (next.isEmpty() || !previous.isParentOf(next.get())) {
          return null;
        }
        deltas.add(scan.delta(next.get()));
        previous = next.get();
      }
    } catch (FileNotFoundException expired) {
      return null;
    }
    return deltas;
  }

  private static void apply(Map<String, Partition> live, Collection<ManifestEntry> changes) {
    for (ManifestEntry e : changes) {
      Partition files = live.computeIfAbsent(e.partition(), p -> new Partition());
      if (e.kind() == dev.lockstep.engine.manifest.FileKind.ADD) {
        files.add(e);
      } else {
        files.remove(e.id());
      }
    }
  }
}
