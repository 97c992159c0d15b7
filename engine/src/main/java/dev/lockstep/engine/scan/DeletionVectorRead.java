package dev.lockstep.engine.scan;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.format.ReadOptions;
import dev.lockstep.engine.index.DeletionVectorFile;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.DeletionVectorOptions;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.roaringbitmap.RoaringBitmap;

/**
 * Reads a primary-key split file by file, skipping the rows its deletion vectors mark, instead of
 * merging keys across files (docs/engine.md, "Deletion vectors"). Used when the table has {@code
 * deletion-vectors.enabled} and the split's snapshot names a vector file for the bucket that lists
 * every file of the split; otherwise {@link #read} returns false and the caller merges. Rows come
 * file by file (not in key order); only the projected and filtered columns are read (plus the
 * system columns when kinds are asked for). The vectors make each file's rows final, so the filter
 * may skip files, row groups and single rows; the reader leaves out the vectors' positions ({@link
 * ReadOptions#deleted()}, counted over the whole file, skipped row groups included).
 */
final class DeletionVectorRead {

  private final TableStore table;
  private final boolean enabled;
  private long snapshotId = -1;
  private Map<BucketId, IndexFileMeta> files = Map.of();

  DeletionVectorRead(TableStore table) {
    this.table = table;
    this.enabled = DeletionVectorOptions.enabled(table);
  }

  /** The vectors of {@code split}'s bucket at its snapshot, or {@code null} when there are none. */
  Map<String, RoaringBitmap> vectors(Split split) throws IOException {
    if (!enabled) {
      return null;
    }
    if (split.snapshotId() != snapshotId) {
      Optional<Snapshot> snapshot = table.snapshotManager().find(split.snapshotId());
      files = snapshot.isEmpty() ? Map.of() : DeletionVectorFile.byBucket(table, snapshot.get());
      snapshotId = split.snapshotId();
    }
    IndexFileMeta file = files.get(new BucketId(split.partition(), split.bucket()));
    if (file == null) {
      return null;
    }
    Map<String, RoaringBitmap> vectors = DeletionVectorFile.read(table, file.fileName());
    for (DataFileMeta f : split.files()) {
      if (!vectors.containsKey(f.fileName())) {
        return null; // not covered: merge
      }
    }
    return vectors;
  }

  /** Reads {@code split} with its vectors; false (nothing read) when it has none. */
  boolean read(
      Split split,
      int[] projection,
      Predicate filter,
      ScanMetrics metrics,
      boolean kinds,
      BiConsumer<RowKind, GenericRow> consumer)
      throws IOException {
    Map<String, RoaringBitmap> vectors = vectors(split);
    if (vectors == null) {
      return false;
    }
    int fieldCount = table.schema().fields().size();
    boolean[] columns = new boolean[table.dataFileRowType().size()];
    if (projection == null) {
      for (int i = 0; i < fieldCount; i++) {
        columns[i] = true;
      }
    } else {
      for (int i : projection) {
        columns[i] = true;
      }
    }
    if (filter != null) {
      filter.columns().forEach(i -> columns[i] = true);
    }
    if (kinds) {
      for (int i = fieldCount; i < columns.length; i++) {
        columns[i] = true;
      }
    }
    for (DataFileMeta file : split.files()) {
      RoaringBitmap deleted = vectors.get(file.fileName());
      if (deleted.getLongCardinality() >= file.rowCount()) {
        continue; // every row superseded
      }
      metrics.filesRead.incrementAndGet();
      // The reader drops the deleted positions (counting the rows of the row groups it skips) and
      // may drop rows and row groups the filter rules out: each row left is final on its own.
      ReadOptions options = new ReadOptions(columns, filter, metrics, filter, deleted);
      try (FormatReader reader =
          table
              .format()
              .createReader(
                  table.fileIO(),
                  table.bucketPath(split.partition(), split.bucket()).child(file.fileName()),
                  table.dataFileRowType(),
                  options)) {
        for (GenericRow r = reader.next(); r != null; r = reader.next()) {
          if (filter != null && !filter.test(r)) {
            continue;
          }
          GenericRow row = projection == null ? r.prefix(fieldCount) : r.project(projection);
          consumer.accept(kinds ? table.rowKindOf(r) : RowKind.INSERT, row);
        }
      }
    }
    return true;
  }
}
