package dev.lockstep.engine.scan;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.format.ReadOptions;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.store.MissingDataFiles;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Reads splits. Primary-key tables are merged: one row per key, the row of the latest commit (see
 * {@link DeduplicateMerger}), in key order; with deletion vectors ({@link DeletionVectorRead}) the
 * same rows, file by file; a split whose files are disjoint in key (one file, or files of one level
 * after a full compaction) the same rows, in the same order, read raw without a merge ({@link
 * #forEachRaw}). Append tables return every row, file by file. An optional projection picks and
 * orders columns by name.
 */
public final class TableRead {

  private final TableStore table;
  private int[] projection;
  private Predicate filter;
  private ScanMetrics metrics = new ScanMetrics();
  private final DeletionVectorRead vectors;

  public TableRead(TableStore table) {
    this.table = table;
    this.vectors = new DeletionVectorRead(table);
  }

  /**
   * Returns only these columns, in this order.
   *
   * @throws IllegalArgumentException naming an unknown column
   */
  public TableRead withProjection(String... columns) {
    this.projection = table.schema().rowType().indexesOf(List.of(columns));
    return this;
  }

  /**
   * Returns only the rows that make {@code filter} (on the table's columns) TRUE: it is applied to
   * every row (in primary-key tables to the merged row), and skips Parquet row groups and, inside
   * the row groups read, rows before their other columns are decoded, as {@link Pushdown} allows.
   * The projection need not include its columns.
   */
  public TableRead withFilter(Predicate filter) {
    this.filter = filter;
    return this;
  }

  /** Counts files, row groups and pages read and skipped into {@code metrics}. */
  public TableRead withMetrics(ScanMetrics metrics) {
    this.metrics = metrics;
    return this;
  }

  /**
   * The data-file columns to read: the projected ones (all without a projection), the filter's, and
   * in primary-key tables the key, {@code sequence.field} and system columns the merge needs.
   */
  private boolean[] columnsToRead() {
    if (projection == null) {
      return null;
    }
    boolean[] read = new boolean[table.dataFileRowType().size()];
    for (int i : projection) {
      read[i] = true;
    }
    if (filter != null) {
      filter.columns().forEach(i -> read[i] = true);
    }
    if (table.primaryKeyTable()) {
      for (int i : table.schema().primaryKeyIndexes()) {
        read[i] = true;
      }
      for (int i : table.sequenceFieldIndexes()) {
        read[i] = true;
      }
      for (int i = table.schema().fields().size(); i < read.length; i++) {
        read[i] = true;
      }
    }
    return read;
  }

  /** The rows of one split, in memory. */
  public List<GenericRow> read(Split split) throws IOException {
    List<GenericRow> rows = new ArrayList<>();
    forEach(split, rows::add);
    return rows;
  }

  /**
   * Streams the rows of one split to {@code consumer}; memory holds one row per file. A file of the
   * split found missing after a failure is noted ({@link MissingDataFiles}), so that a commit in
   * this JVM does not carry its reference forward.
   */
  public void forEach(Split split, Consumer<GenericRow> consumer) throws IOException {
    forEach(split, (kind, row) -> consumer.accept(row), false);
  }

  /**
   * Streams the rows of one split with their kinds: in a primary-key table the kind of the row that
   * won its key ({@code +I} or {@code +U}; keys whose winner is {@code -U} or {@code -D} are
   * absent), in an append table {@code +I}. A missing file is noted as {@link #forEach} says.
   */
  public void forEachWithKind(Split split, BiConsumer<RowKind, GenericRow> consumer)
      throws IOException {
    forEach(split, consumer, true);
  }

  private void forEach(Split split, BiConsumer<RowKind, GenericRow> consumer, boolean kinds)
      throws IOException {
    try {
      if (vectors.read(split, projection, filter, metrics, kinds, consumer)) {
        return;
      }
      forEachRow(split, consumer);
    } catch (IOException e) {
      for (DataFileMeta file : split.files()) {
        if (!table
            .fileIO()
            .exists(table.bucketPath(split.partition(), split.bucket()).child(file.fileName()))) {
          MissingDataFiles.note(
              table,
              new BucketId(split.partition(), split.bucket()).directory() + "/" + file.fileName());
        }
      }
      throw e;
    }
  }

  private void forEachRow(Split split, BiConsumer<RowKind, GenericRow> consumer)
      throws IOException {
    if (table.primaryKeyTable()) {
      List<DataFileMeta> disjoint = Pushdown.disjointInKeyOrder(table, split.files());
      if (disjoint != null) {
        forEachRaw(split, disjoint, consumer);
        return;
      }
    }
    boolean[] columns = columnsToRead();
    if (table.primaryKeyTable()) {
      Predicate keyFilter =
          filter == null ? null : Pushdown.conjunctsOn(filter, table.schema().primaryKeyIndexes());
      Set<String> isolated = filter == null ? Set.of() : Pushdown.isolated(table, split.files());
      try (DeduplicateMerger merger =
          DeduplicateMerger.reading(
              table,
              split.partition(),
              split.bucket(),
              split.files(),
              file -> {
                metrics.filesRead.incrementAndGet();
                // What may skip a row group may skip a row (Pushdown): the reader drops the rows
                // it rules out before decoding their other columns.
                Predicate skip = isolated.contains(file.fileName()) ? filter : keyFilter;
                return new ReadOptions(columns, skip, metrics, skip, null);
              })) {
        for (KeyValue kv = merger.next(); kv != null; kv = merger.next()) {
          if (!kv.deleted() && (filter == null || filter.test(kv.fileRow()))) {
            consumer.accept(kv.kind(), project(kv.row()));
          }
        }
      }
      return;
    }
    ReadOptions options = new ReadOptions(columns, filter, metrics, filter, null);
    for (DataFileMeta file : split.files()) {
      metrics.filesRead.incrementAndGet();
      try (FormatReader reader =
          table
              .format()
              .createReader(
                  table.fileIO(),
                  table.bucketPath(split.partition(), split.bucket()).child(file.fileName()),
                  table.dataFileRowType(),
                  options)) {
        for (GenericRow r = reader.next(); r != null; r = reader.next()) {
          if (filter == null || filter.test(r)) {
            consumer.accept(RowKind.INSERT, project(r));
          }
        }
      }
    }
  }

  /**
   * Reads a primary-key split whose files hold no key twice (docs/engine.md, "Raw reads of
   * primary-key buckets"): each file on its own, in key order, without merging, reading only the
   * projected and filtered columns plus {@code _DELETED} and {@code _ROW_KIND}, and leaving out the
   * retractions ({@code -U}, {@code -D}). Each key has one row in the whole split, which is then
   * the merge's winner, so the result is the merge read's; and since each row is final on its own,
   * the whole filter skips row groups, pages and rows.
   */
  private void forEachRaw(
      Split split, List<DataFileMeta> files, BiConsumer<RowKind, GenericRow> consumer)
      throws IOException {
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
    // What table.rowKindOf needs: _ROW_KIND, and _DELETED for rows of files written before it.
    columns[fieldCount + 2] = true;
    columns[fieldCount + 3] = true;
    ReadOptions options = new ReadOptions(columns, filter, metrics, filter, null);
    for (DataFileMeta file : files) {
      metrics.filesRead.incrementAndGet();
      metrics.filesReadRaw.incrementAndGet();
      try (FormatReader reader =
          table
              .format()
              .createReader(
                  table.fileIO(),
                  table.bucketPath(split.partition(), split.bucket()).child(file.fileName()),
                  table.dataFileRowType(),
                  options)) {
        for (GenericRow r = reader.next(); r != null; r = reader.next()) {
          RowKind kind = table.rowKindOf(r);
          if (kind.isRetract() || (filter != null && !filter.test(r))) {
            continue;
          }
          consumer.accept(kind, projection == null ? r.prefix(fieldCount) : r.project(projection));
        }
      }
    }
  }

  /** Every row of every split of {@code plan}. */
  public List<GenericRow> readAll(TableScan.Plan plan) throws IOException {
    List<GenericRow> rows = new ArrayList<>();
    for (Split split : plan.splits()) {
      rows.addAll(read(split));
    }
    return rows;
  }

  private GenericRow project(GenericRow row) {
    return projection == null ? row : row.project(projection);
  }
}
