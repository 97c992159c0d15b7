package dev.lockstep.engine.format;

import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.ScanMetrics;

/**
 * What a reader may leave out. Rows keep the full width of the row type; a column not in {@code
 * columns} may read as NULL. A reader may skip parts of the file (Parquet row groups) whose
 * statistics show that no row makes {@code skipFilter} TRUE; it never filters single rows, so a
 * reader that ignores these options is still correct.
 *
 * @param columns which columns of the row type to read, or {@code null} for all
 * @param skipFilter a predicate on the row type's columns, or {@code null}
 * @param metrics where row groups read and skipped are counted, or {@code null}
 */
public record ReadOptions(boolean[] columns, Predicate skipFilter, ScanMetrics metrics) {

  /** Everything, nothing skipped. */
  public static final ReadOptions ALL = new ReadOptions(null, null, null);

  /** Whether column {@code index} is read. */
  public boolean reads(int index) {
    return columns == null || columns[index];
  }
}
