package dev.lockstep.engine.scan;

import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
  private dev.lockstep.engine.predicate.Predicate filter;
  private ScanMetrics metrics = new ScanMetrics();

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

  /**
   * Plans only what might hold rows that make {@code filter} (on the table's columns, see {@link
   * dev.lockstep.engine.predicate.PredicateBuilder}) TRUE: manifests, partitions and data files are
   * skipped by their statistics as {@link Pushdown} says. The plan may still hold rows that fail
   * it: give the same filter to {@link TableRead#withFilter} for exactly the rows that pass.
   */
  public TableScan withFilter(dev.lockstep.engine.predicate.Predicate filter) {
    this.filter = filter;
    return this;
  }

  /** Counts manifests and files read and skipped into {@code metrics}. */
  public TableScan withMetrics(ScanMetrics metrics) {
    this.metrics = metrics;
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
    dev.lockstep.engine.predicate.Predicate partitions = Pushdown.partitionFilter(table, filter);
    // Entries come grouped by manifest, so consecutive ones mostly share partition and bucket:
    // the last bucket's list is reused without the two tree look-ups.
    String lastPartition = null;
    int lastBucket = 0;
    List<DataFileMeta> lastFiles = null;
    for (ManifestEntry e :
        new FileStoreScan(table).liveFiles(snapshot.get(), partitions, metrics).values()) {
      if (lastFiles != null && e.bucket() == lastBucket && e.partition().equals(lastPartition)) {
        lastFiles.add(e.file());
        continue;
      }
      boolean keep =
          accepted.computeIfAbsent(
              e.partition(),
              p ->
                  partitionFilter.test(table.partitionPath().toMap(p))
                      && (partitions == null || partitions.test(table.partitionPath().toRow(p))));
      if (keep) {
        lastPartition = e.partition();
        lastBucket = e.bucket();
        lastFiles =
            grouped
                .computeIfAbsent(e.partition(), p -> new TreeMap<>())
                .computeIfAbsent(e.bucket(), b -> new ArrayList<>());
        lastFiles.add(e.file());
      } else {
        lastFiles = null;
      }
    }
    if (filter != null) {
      for (TreeMap<Integer, List<DataFileMeta>> buckets : grouped.values()) {
        buckets.replaceAll((bucket, files) -> skipFiles(files));
      }
    }
    if (!table.primaryKeyTable()) {
      // An append bucket reads in row order: commits in commit order, each writer's rows in
      // write order; compaction outputs sit where their inputs were (compact.AppendCompaction).
      for (TreeMap<Integer, List<DataFileMeta>> buckets : grouped.values()) {
        buckets.values().forEach(files -> files.sort(DataFileMeta.APPEND_ORDER));
      }
    }
    List<Split> splits = new ArrayList<>();
    long id = snapshot.get().id();
    grouped.forEach(
        (partition, buckets) ->
            buckets.forEach(
                (bucket, files) -> {
                  metrics.filesPlanned.addAndGet(files.size());
                  if (!files.isEmpty()) {
                    splits.add(new Split(id, partition, bucket, files));
                  }
                }));
    return new Plan(id, splits);
  }

  /** The files of one bucket that might hold rows passing the filter ({@link Pushdown}). */
  private List<DataFileMeta> skipFiles(List<DataFileMeta> files) {
    dev.lockstep.engine.predicate.Predicate anywhere =
        table.primaryKeyTable()
            ? Pushdown.conjunctsOn(filter, table.schema().primaryKeyIndexes())
            : filter;
    Set<String> isolated = table.primaryKeyTable() ? Pushdown.isolated(table, files) : Set.of();
    List<DataFileMeta> kept = new ArrayList<>();
    for (DataFileMeta file : files) {
      dev.lockstep.engine.predicate.Predicate skip =
          isolated.contains(file.fileName()) ? filter : anywhere;
      if (skip != null && !skip.mightMatch(Pushdown.stats(table, file))) {
        metrics.filesSkipped.incrementAndGet();
      } else {
        kept.add(file);
      }
    }
    return kept;
  }

  /** The splits of one snapshot. */
  public record Plan(long snapshotId, List<Split> splits) {
    public Plan {
      splits = List.copyOf(splits);
    }
  }
}
