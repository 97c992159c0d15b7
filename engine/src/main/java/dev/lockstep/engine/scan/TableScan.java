package dev.lockstep.engine.scan;

import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Plans a read: which files of which buckets make up the latest snapshot (or a given one), limited
 * to the partitions a filter accepts. Planning reads manifests only.
 */
public final class TableScan {

  private final TableStore table;
  private Long snapshotId;
  private Snapshot pinned;
  private Predicate<Map<String, Object>> partitionFilter = p -> true;

  public TableScan(TableStore table) {
    this.table = table;
  }

  /** Reads snapshot {@code id} instead of the latest (time travel). */
  public TableScan withSnapshot(long id) {
    this.snapshotId = id;
    this.pinned = null;
    return this;
  }

  /** Reads {@code snapshot}, which may be a copy whose file expired (a tag's). */
  public TableScan withSnapshot(Snapshot snapshot) {
    this.pinned = snapshot;
    this.snapshotId = null;
    return this;
  }

  /** Keeps the partitions whose values (column name to value) pass {@code filter}. */
  public TableScan withPartitionFilter(Predicate<Map<String, Object>> filter) {
    this.partitionFilter = filter;
    return this;
  }

  /** Keeps the partitions whose columns equal every value of {@code spec}. */
  public TableScan withPartition(Map<String, Object> spec) {
    for (String column : spec.keySet()) {
      if (!table.schema().partitionKeys().contains(column)) {
        throw new IllegalArgumentException(
            "'"
                + column
                + "' is not a partition column of "
                + table.fullName()
                + "; the partition columns are "
                + table.schema().partitionKeys());
      }
    }
    return withPartitionFilter(p -> p.entrySet().containsAll(spec.entrySet()));
  }

  /**
   * The splits to read, one per bucket, ordered by partition and bucket; empty for a table without
   * snapshots.
   *
   * @throws java.io.FileNotFoundException when the requested snapshot does not exist
   */
  public Plan plan() throws IOException {
    Optional<Snapshot> snapshot =
        pinned != null
            ? Optional.of(pinned)
            : snapshotId == null
                ? table.snapshotManager().latest()
                : Optional.of(table.snapshotManager().get(snapshotId));
    if (snapshot.isEmpty()) {
      return new Plan(0, List.of());
    }
    TreeMap<String, TreeMap<Integer, List<DataFileMeta>>> grouped = new TreeMap<>();
    Map<String, Boolean> accepted = new TreeMap<>();
    for (ManifestEntry e : new FileStoreScan(table).liveFiles(snapshot.get()).values()) {
      boolean keep =
          accepted.computeIfAbsent(
              e.partition(), p -> partitionFilter.test(table.partitionPath().toMap(p)));
      if (keep) {
        grouped
            .computeIfAbsent(e.partition(), p -> new TreeMap<>())
            .computeIfAbsent(e.bucket(), b -> new ArrayList<>())
            .add(e.file());
      }
    }
    List<Split> splits = new ArrayList<>();
    long id = snapshot.get().id();
    grouped.forEach(
        (partition, buckets) ->
            buckets.forEach(
                (bucket, files) -> splits.add(new Split(id, partition, bucket, files))));
    return new Plan(id, splits);
  }

  /** The splits of one snapshot. */
  public record Plan(long snapshotId, List<Split> splits) {
    public Plan {
      splits = List.copyOf(splits);
    }
  }
}
