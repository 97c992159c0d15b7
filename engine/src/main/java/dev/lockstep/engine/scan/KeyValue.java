package dev.lockstep.engine.scan;

import dev.lockstep.engine.data.GenericRow;

/**
 * A primary-key row as a data file holds it, with its ordering key: the snapshot that committed it,
 * then its sequence number inside that commit. Of two rows with one key, the greater (snapshot,
 * sequence) wins; a winning row with {@code deleted} set means the key is gone.
 *
 * <p>{@link #fileRow()} is the data-file row: the table's columns, then {@code _SNAPSHOT},
 * {@code _SEQUENCE} and {@code _DELETED}. {@link #key()} and {@link #row()} are projections made
 * on request, so a merge that only compares and copies rows never builds them.
 */
public final class KeyValue {

  private final GenericRow fileRow;
  private final int[] keyIndexes;
  private final int fieldCount;
  private final long snapshot;
  private final long sequence;
  private final boolean deleted;

  KeyValue(GenericRow fileRow, int[] keyIndexes, int fieldCount, long snapshot, long sequence,
      boolean deleted) {
    this.fileRow = fileRow;
    this.keyIndexes = keyIndexes;
    this.fieldCount = fieldCount;
    this.snapshot = snapshot;
    this.sequence = sequence;
    this.deleted = deleted;
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

  public boolean deleted() {
    return deleted;
  }

  /** Whether this row wins over {@code other} (same key). */
  public boolean newerThan(KeyValue other) {
    return snapshot != other.snapshot ? snapshot > other.snapshot : sequence > other.sequence;
  }
}
