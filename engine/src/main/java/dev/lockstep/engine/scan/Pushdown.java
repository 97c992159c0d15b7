package dev.lockstep.engine.scan;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.StatsView;
import dev.lockstep.engine.store.TableStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which parts of a filter may skip what (engine README, "Filters, statistics and projection").
 *
 * <ul>
 *   <li>Conjuncts on partition columns only skip manifests (by their partition statistics) and
 *       partitions (exactly).
 *   <li>Append tables: the whole filter skips data files (by their column statistics) and Parquet
 *       row groups (by the footer's).
 *   <li>Primary-key tables: the conjuncts on primary-key columns only (the <em>key filter</em>)
 *       skip files and row groups anywhere: every version of a key has the same key values, so a
 *       file without a row passing it holds no version of a key in the result. The whole filter
 *       skips a file, or a row group of it, only when the file's key range overlaps no other file
 *       of the bucket that is read: then every version of its keys is in it, and the merge of its
 *       keys picks one of its rows. A value filter on overlapping files is applied after the merge
 *       only, since skipping a newer version (or a delete) would let an older row that passes show.
 * </ul>
 */
final class Pushdown {

  private Pushdown() {}

  /** The conjuncts of {@code filter} on columns in {@code columns} only; {@code null}: none. */
  static Predicate conjunctsOn(Predicate filter, int[] columns) {
    Set<Integer> allowed = new HashSet<>();
    for (int c : columns) {
      allowed.add(c);
    }
    List<Predicate> kept = new ArrayList<>();
    for (Predicate p : Predicate.splitAnd(filter)) {
      if (allowed.containsAll(p.columns())) {
        kept.add(p);
      }
    }
    return Predicate.and(kept);
  }

  /** The conjuncts on partition columns, renumbered to positions in the partition row. */
  static Predicate partitionFilter(TableStore table, Predicate filter) {
    int[] partition = table.schema().partitionIndexes();
    Predicate p = conjunctsOn(filter, partition);
    if (p == null) {
      return null;
    }
    return p.mapColumns(
        i -> {
          for (int k = 0; k < partition.length; k++) {
            if (partition[k] == i) {
              return k;
            }
          }
          return -1;
        });
  }

  /** The statistics of a data file's rows; unknown columns when it has none. */
  static StatsView stats(TableStore table, DataFileMeta file) {
    FieldStats[] fields = null;
    if (file.valueStats() != null && file.schemaId() == table.schema().id()) {
      fields = table.valueStatsCodec().decode(file.valueStats());
    }
    return StatsView.of(file.rowCount(), fields);
  }

  /**
   * {@code files} (of one primary-key bucket) ordered by key, when no two of them can hold the same
   * key: every file is committed and has its key range, and each file's smallest key is greater
   * than the largest key of the file before it. {@code null} otherwise (the files are merged). Each
   * file holds a key at most once (flushes and compactions write sorted, deduplicated runs), so
   * then every key has exactly one row in the files, and reading them one after the other returns
   * the rows in key order.
   */
  static List<DataFileMeta> disjointInKeyOrder(TableStore table, List<DataFileMeta> files) {
    int n = files.size();
    GenericRow[] min = new GenericRow[n];
    GenericRow[] max = new GenericRow[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      DataFileMeta f = files.get(i);
      if (f.minKey() == null || f.maxKey() == null || f.commitSnapshot() < 0) {
        return null;
      }
      min[i] = table.keyCodec().decode(f.minKey());
      max[i] = table.keyCodec().decode(f.maxKey());
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparing(i -> min[i], RowComparator.INSTANCE));
    List<DataFileMeta> sorted = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      if (k > 0 && RowComparator.INSTANCE.compare(max[order[k - 1]], min[order[k]]) >= 0) {
        return null;
      }
      sorted.add(files.get(order[k]));
    }
    return sorted;
  }

  /**
   * The files of a primary-key bucket whose key range ({@code minKey..maxKey}) overlaps no other of
   * {@code files}.
   */
  static Set<String> isolated(TableStore table, List<DataFileMeta> files) {
    Set<String> isolated = new HashSet<>();
    int n = files.size();
    GenericRow[] min = new GenericRow[n];
    GenericRow[] max = new GenericRow[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      DataFileMeta f = files.get(i);
      if (f.minKey() == null || f.maxKey() == null) {
        return isolated;
      }
      min[i] = table.keyCodec().decode(f.minKey());
      max[i] = table.keyCodec().decode(f.maxKey());
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparing(i -> min[i], RowComparator.INSTANCE));
    GenericRow runningMax = null;
    for (int k = 0; k < n; k++) {
      int i = order[k];
      boolean overlapsEarlier =
          runningMax != null && RowComparator.INSTANCE.compare(runningMax, min[i]) >= 0;
      boolean overlapsLater =
          k + 1 < n && RowComparator.INSTANCE.compare(min[order[k + 1]], max[i]) <= 0;
      if (!overlapsEarlier && !overlapsLater) {
        isolated.add(files.get(i).fileName());
      }
      if (runningMax == null || RowComparator.INSTANCE.compare(max[i], runningMax) > 0) {
        runningMax = max[i];
      }
    }
    return isolated;
  }
}
