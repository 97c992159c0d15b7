package dev.lockstep.engine.compact;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.IOException;
import java.util.Collection;
import java.util.TreeMap;

/**
 * The {@code deduplicate} merge engine: reads the files of one primary-key bucket and keeps, per
 * key, the row with the greatest (commit snapshot, sequence). A row's commit snapshot is its
 * {@code _SNAPSHOT} column, or the file's commit snapshot when that column is -1 (rows of flushed,
 * never compacted files). Files may be given in any order: the result does not depend on levels.
 *
 * <p>Merges in memory (a sorted map of the bucket's keys); a streaming k-way merge is future work.
 */
public final class DeduplicateMerger {

  private final FileStoreTable table;
  private final int[] keyIndexes;
  private final int fieldCount;

  public DeduplicateMerger(FileStoreTable table) {
    this.table = table;
    this.keyIndexes = table.schema().primaryKeyIndexes();
    this.fieldCount = table.schema().fields().size();
  }

  /** The winning row per key of {@code files}, in key order. */
  public TreeMap<GenericRow, KeyValue> merge(String partition, int bucket,
      Collection<DataFileMeta> files) throws IOException {
    TreeMap<GenericRow, KeyValue> merged = new TreeMap<>(RowComparator.INSTANCE);
    int[] valueIndexes = new int[fieldCount];
    for (int i = 0; i < fieldCount; i++) {
      valueIndexes[i] = i;
    }
    for (DataFileMeta file : files) {
      if (file.commitSnapshot() < 0) {
        throw new IllegalStateException("File " + file.fileName() + " is not committed yet and"
            + " cannot be merged by commit order.");
      }
      try (FormatReader reader = table.format().createReader(table.fileIO(),
          table.bucketPath(partition, bucket).child(file.fileName()), table.dataFileRowType())) {
        for (GenericRow r = reader.next(); r != null; r = reader.next()) {
          long snapshot = (Long) r.get(fieldCount);
          KeyValue kv = new KeyValue(r.project(keyIndexes), r.project(valueIndexes),
              snapshot < 0 ? file.commitSnapshot() : snapshot, (Long) r.get(fieldCount + 1));
          KeyValue old = merged.get(kv.key());
          if (old == null || kv.newerThan(old)) {
            merged.put(kv.key(), kv);
          }
        }
      }
    }
    return merged;
  }
}
