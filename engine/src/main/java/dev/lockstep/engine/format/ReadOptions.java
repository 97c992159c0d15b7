package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.ScanMetrics;
import java.io.IOException;
import org.roaringbitmap.RoaringBitmap;

/**
 * What a reader may leave out. Rows keep the full width of the row type; a column not in {@code
 * columns} may read as NULL. A reader may skip parts of the file whose statistics show that no row
 * makes {@code skipFilter} TRUE (Parquet row groups by the footer's statistics, and the rows of
 * pages by the page indexes: so a skip filter, like a row filter, may leave out single rows), and
 * may leave out single rows that do not make {@code rowFilter} TRUE; a reader that ignores these
 * two is still correct (the caller applies its filter to the rows it gets). The rows at the
 * positions in {@code deleted} are never returned: that one is binding, every reader leaves them
 * out (and counts positions over the whole file, skipped parts included).
 *
 * @param columns which columns of the row type to read, or {@code null} for all
 * @param skipFilter a predicate on the row type's columns, or {@code null}
 * @param metrics where row groups and pages read and skipped are counted, or {@code null}
 * @param rowFilter a predicate on the row type's columns whose FALSE or UNKNOWN rows may be left
 *     out, or {@code null}: the Parquet reader decodes its columns first and the other requested
 *     columns only for the rows it keeps (late materialization). Must be a predicate the caller may
 *     apply to single rows of this file (for primary-key files the same rule as {@code skipFilter}:
 *     see {@code scan.Pushdown})
 * @param deleted positions (0-based, in file order) of rows never to return, or {@code null}
 */
public record ReadOptions(
    boolean[] columns,
    Predicate skipFilter,
    ScanMetrics metrics,
    Predicate rowFilter,
    RoaringBitmap deleted) {

  /** Everything, nothing skipped. */
  public static final ReadOptions ALL = new ReadOptions(null, null, null);

  /** No row filter and no deleted rows. */
  public ReadOptions(boolean[] columns, Predicate skipFilter, ScanMetrics metrics) {
    this(columns, skipFilter, metrics, null, null);
  }

  /** Whether column {@code index} is read. */
  public boolean reads(int index) {
    return columns == null || columns[index];
  }

  /**
   * {@code reader} without the rows at {@link #deleted()} positions, for readers that return every
   * row of the file; {@code reader} itself when nothing is deleted.
   */
  public FormatReader dropDeleted(FormatReader reader) {
    if (deleted == null || deleted.isEmpty()) {
      return reader;
    }
    RoaringBitmap positions = deleted;
    return new FormatReader() {
      private int position;

      @Override
      public GenericRow next() throws IOException {
        for (GenericRow row = reader.next(); row != null; row = reader.next()) {
          if (!positions.contains(position++)) {
            return row;
          }
        }
        return null;
      }

      @Override
      public void close() throws IOException {
        reader.close();
      }
    };
  }
}
