package dev.lockstep.engine.data;

import java.io.Serializable;
import java.util.Arrays;

/**
 * A row of Java values, one per column, in the classes {@link
 * dev.lockstep.engine.types.DataTypeRoot} names ({@code null} for SQL NULL). Equality compares
 * values, {@code byte[]} by content.
 *
 * <p>Not copied on the way in: callers must not change a row after handing it to a writer.
 */
public final class GenericRow implements Serializable {

  private static final long serialVersionUID = 1L;

  private final Object[] values;

  private GenericRow(Object[] values) {
    this.values = values;
  }

  public static GenericRow of(Object... values) {
    return new GenericRow(values.clone());
  }

  /**
   * A row over {@code values} itself, not a copy: the caller hands the array over and must not
   * touch it again. For readers and writers that build a fresh array per row.
   */
  public static GenericRow wrap(Object[] values) {
    return new GenericRow(values);
  }

  public int size() {
    return values.length;
  }

  public Object get(int index) {
    return values[index];
  }

  /** The values at {@code indexes}, as a new row. */
  public GenericRow project(int[] indexes) {
    Object[] projected = new Object[indexes.length];
    for (int i = 0; i < indexes.length; i++) {
      projected[i] = values[indexes[i]];
    }
    return new GenericRow(projected);
  }

  /** The first {@code count} values, as a new row. */
  public GenericRow prefix(int count) {
    return new GenericRow(Arrays.copyOf(values, count));
  }

  /** A copy of this row with the value at {@code index} replaced. */
  public GenericRow with(int index, Object value) {
    Object[] copy = values.clone();
    copy[index] = value;
    return new GenericRow(copy);
  }

  /** A rough size in bytes, for the memory bound of write buffers. */
  public long estimatedBytes() {
    long bytes = 16 + 8L * values.length;
    for (Object value : values) {
      if (value instanceof String) {
        bytes += 40 + 2L * ((String) value).length();
      } else if (value instanceof byte[]) {
        bytes += 16 + ((byte[]) value).length;
      } else if (value != null) {
        bytes += 24;
      }
    }
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GenericRow && Arrays.deepEquals(values, ((GenericRow) o).values);
  }

  @Override
  public int hashCode() {
    return Arrays.deepHashCode(values);
  }

  @Override
  public String toString() {
    return Arrays.deepToString(values);
  }
}
