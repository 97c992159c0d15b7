package dev.lockstep.engine.format;

import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.StatsView;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.DataTypeRoot;
import dev.lockstep.engine.types.RowType;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;

/**
 * Page skipping by Parquet's page indexes: a row group's <em>column index</em> holds, per data page
 * of a column chunk, the minimum, maximum and null count of the page's values, and its <em>offset
 * index</em> where each page starts and which row it starts at (parquet-mr writes both for every
 * column by default). From them this class computes the rows of a row group that may make a filter
 * TRUE, as row ranges (parquet-mr's {@link RowRanges}), the way parquet-mr's {@code
 * ColumnIndexFilter} does for its own predicates:
 *
 * <ul>
 *   <li>a part of the filter on one column: the rows of that column's pages whose statistics
 *       ({@link Predicate#mightMatch} over the page's min, max and null count) may match;
 *   <li>AND: the intersection of its children's rows; OR: their union; NOT: the rows of its child
 *       negated ({@link Predicate#negate} pushes the negation down to the comparisons);
 *   <li>a column without indexes (or not read): every row.
 * </ul>
 *
 * A row outside the ranges is in a page, of some column of a conjunct (or of every disjunct), whose
 * statistics show that no value of it makes that part TRUE, so the row cannot make the filter TRUE.
 * The reader then fetches, for every requested column, only the pages that overlap the ranges
 * (parquet-mr's filtered row-group read, pages located by the offset index) and decodes the columns
 * row-aligned from range to range ({@link ParquetPageColumn#seek}).
 */
final class PageIndexes {

  private PageIndexes() {}

  /** A requested column: its Parquet descriptor and its position in the row type. */
  record ColumnRef(ColumnDescriptor descriptor, int position) {}

  /**
   * The rows of a row group that may match, and the pages of the requested columns left out.
   *
   * @param ranges the rows to read, as parquet-mr's filtered row-group read takes them
   * @param pagesSkipped data pages of the requested columns that hold none of those rows
   */
  record Selection(RowRanges ranges, long pagesSkipped) {

    /** The ranges as {@code [from, to)} pairs, ascending. */
    long[] runs() {
      List<RowRanges.Range> list = ranges.getRanges();
      long[] runs = new long[list.size() * 2];
      for (int i = 0; i < list.size(); i++) {
        runs[2 * i] = list.get(i).from;
        runs[2 * i + 1] = list.get(i).to + 1;
      }
      return runs;
    }
  }

  /**
   * The rows of row group {@code index} that may make {@code filter} TRUE, or {@code null} when the
   * page indexes rule out no row (or the file has none for a requested column): then the row group
   * is read whole.
   */
  static Selection select(
      ParquetFileReader file,
      int index,
      BlockMetaData block,
      Predicate filter,
      List<ColumnRef> columns,
      RowType rowType) {
    ColumnIndexStore store = file.getColumnIndexStore(index);
    long rowCount = block.getRowCount();
    OffsetIndex[] offsets = new OffsetIndex[columns.size()];
    for (int i = 0; i < offsets.length; i++) {
      offsets[i] = offsetIndex(store, columns.get(i).descriptor());
      if (offsets[i] == null) {
        return null; // the filtered read needs every requested column's offset index
      }
    }
    RowRanges ranges = rows(filter, store, columns, rowType, rowCount);
    if (ranges.rowCount() >= rowCount) {
      return null;
    }
    long skipped = 0;
    for (OffsetIndex offset : offsets) {
      for (int page = 0; page < offset.getPageCount(); page++) {
        if (!ranges.isOverlapping(
            offset.getFirstRowIndex(page), offset.getLastRowIndex(page, rowCount))) {
          skipped++;
        }
      }
    }
    return new Selection(ranges, skipped);
  }

  private static OffsetIndex offsetIndex(ColumnIndexStore store, ColumnDescriptor descriptor) {
    try {
      return store.getOffsetIndex(ColumnPath.get(descriptor.getPath()));
    } catch (RuntimeException e) {
      // parquet-mr's MissingOffsetIndexException: a file written without page indexes.
      return null;
    }
  }

  /** The rows that may make {@code p} TRUE (see the class comment). */
  private static RowRanges rows(
      Predicate p,
      ColumnIndexStore store,
      List<ColumnRef> columns,
      RowType rowType,
      long rowCount) {
    Set<Integer> used = p.columns();
    if (used.size() == 1) {
      return columnRows(p, used.iterator().next(), store, columns, rowType, rowCount);
    }
    if (p instanceof Predicate.And and) {
      RowRanges ranges = null;
      for (Predicate child : and.children()) {
        RowRanges r = rows(child, store, columns, rowType, rowCount);
        ranges = ranges == null ? r : RowRanges.intersection(ranges, r);
      }
      return ranges == null ? RowRanges.createSingle(rowCount) : ranges;
    }
    if (p instanceof Predicate.Or or) {
      RowRanges ranges = null;
      for (Predicate child : or.children()) {
        RowRanges r = rows(child, store, columns, rowType, rowCount);
        ranges = ranges == null ? r : RowRanges.union(ranges, r);
      }
      return ranges == null ? RowRanges.createSingle(rowCount) : ranges;
    }
    if (p instanceof Predicate.Not not) {
      return rows(not.child().negate(), store, columns, rowType, rowCount);
    }
    return RowRanges.createSingle(rowCount);
  }

  /** The rows of the pages of column {@code position} whose statistics may make {@code p} TRUE. */
  private static RowRanges columnRows(
      Predicate p,
      int position,
      ColumnIndexStore store,
      List<ColumnRef> columns,
      RowType rowType,
      long rowCount) {
    ColumnRef column = null;
    for (ColumnRef c : columns) {
      if (c.position() == position) {
        column = c;
      }
    }
    if (column == null) {
      return RowRanges.createSingle(rowCount);
    }
    ColumnPath path = ColumnPath.get(column.descriptor().getPath());
    ColumnIndex index = store.getColumnIndex(path);
    OffsetIndex offsets = offsetIndex(store, column.descriptor());
    if (index == null
        || offsets == null
        || index.getMinValues().size() != offsets.getPageCount()
        || index.getNullPages().size() != offsets.getPageCount()) {
      return RowRanges.createSingle(rowCount);
    }
    DataType type = rowType.field(position).type();
    List<Long> nullCounts = index.getNullCounts();
    if (nullCounts != null && nullCounts.size() != offsets.getPageCount()) {
      nullCounts = null;
    }
    FieldStats[] fields = new FieldStats[rowType.size()];
    int pages = offsets.getPageCount();
    boolean[] keep = new boolean[pages];
    for (int page = 0; page < pages; page++) {
      long rows = offsets.getLastRowIndex(page, rowCount) - offsets.getFirstRowIndex(page) + 1;
      Long nulls = nullCounts == null ? null : nullCounts.get(page);
      if (index.getNullPages().get(page)) {
        fields[position] = new FieldStats(null, null, rows);
      } else {
        fields[position] =
            bounds(
                column.descriptor(),
                type,
                index.getMinValues().get(page),
                index.getMaxValues().get(page),
                nulls);
      }
      keep[page] = p.mightMatch(StatsView.of(rows, fields));
    }
    return RowRanges.create(
        rowCount, IntStream.range(0, pages).filter(i -> keep[i]).iterator(), offsets);
  }

  /**
   * A page's statistics as the engine's values (as {@link ParquetRows#statsOf} converts a row
   * group's): DOUBLE and FLOAT give no bounds, only the null count.
   */
  private static FieldStats bounds(
      ColumnDescriptor descriptor, DataType type, ByteBuffer min, ByteBuffer max, Long nulls) {
    if (type.root() == DataTypeRoot.DOUBLE || type.root() == DataTypeRoot.FLOAT) {
      return new FieldStats(null, null, nulls);
    }
    Statistics<?> stats =
        Statistics.getBuilderForReading(descriptor.getPrimitiveType())
            .withMin(bytes(min))
            .withMax(bytes(max))
            .withNumNulls(nulls == null ? 0 : nulls)
            .build();
    if (!stats.hasNonNullValue()) {
      return new FieldStats(null, null, nulls);
    }
    return new FieldStats(
        ParquetRows.valueOf(type, stats.genericGetMin()),
        ParquetRows.valueOf(type, stats.genericGetMax()),
        nulls);
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return bytes;
  }
}
