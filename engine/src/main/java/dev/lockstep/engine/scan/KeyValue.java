package dev.lockstep.engine.scan;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;

/**
 * A primary-key row as a data file holds it, with its kind and its ordering key: the snapshot that
 * committed it, then its sequence number inside that commit. Of two rows with one key, the greater
 * (snapshot, sequence) wins (after the {@code sequence.field} columns, when the table has them: see
 * {@link DeduplicateMerger}); a winning retraction ({@code -U}, {@code -D}) means the key is gone.
 *
 * <p>{@link #fileRow()} is the data-file row: the table's columns, then {@code _SNAPSHOT}, {@code
 * _SEQUENCE}, {@code _DELETED} and {@code _ROW_KIND}. {@link #key()} and {@link #row()} are
 * projections made on request, so a merge that only compares and copies rows never builds them.
 */
public final class KeyValue {

  private final GenericRow fileRow;
  private final int[] keyIndexes;
  private final int fieldCount;
  private final long snapshot;
  private final long sequence;
  private final RowKind kind;

  KeyValue(
      GenericRow fileRow,
      int[] keyIndexes,
      int fieldCount,
      long snapshot,
      long sequence,
      RowKind kind) {
    this.fileRow = fileRow;
    this.keyIndexes = keyIndexes;
    this.fieldCount = fieldCount;
    this.snapshot = snapshot;
    this.sequence = sequence;
    this.kind = kind;
  }

  /** The row as read from its file, system columns included (its {@code _SNAPSHOT} may be -1). */
  public GenericRow fileRow() {
    return fileRow;
  }

  /** The primary key, a new row. */
  public GenericRow key() {
    return fileRow.project(keyIndexes);
  }

  /** The table's columns, a new row. */
  public GenericRow row() {
    return fileRow.prefix(fieldCount);
  }

  /** The snapshot that committed the row. */
  public long snapshot() {
    return snapshot;
  }

  public long sequence() {
    return sequence;
  }

  /** The row's kind ({@code +I} for rows of files written before row kinds, unless deleted). */
  public RowKind kind() {
    return kind;
  }

  /** Whether the row removes its key ({@code -U} or {@code -D}). */
  public boolean deleted() {
    return kind.isRetract();
  }

  /** Whether this row wins over {@code other} (same key) by (snapshot, sequence) alone. */
  public boolean newerThan(KeyValue other) {
    return snapshot != other.snapshot ? snapshot > other.snapshot : sequence > other.sequence;
  }
}
