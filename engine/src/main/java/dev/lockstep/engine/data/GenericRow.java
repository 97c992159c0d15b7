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

  /**
   * The heap this row holds, its values included, as a 64-bit HotSpot JVM with compressed
   * references lays objects out (12-byte headers, 8-byte alignment; a {@code String} of Latin-1
   * characters one byte per character, others two). Values shared with other objects are counted
   * here too, except {@code Boolean}s (two shared instances). The bound of the write buffers of
   * primary-key tables.
   */
  public long heapBytes() {
    long bytes = 16 + align(16 + 4L * values.length);
    for (Object value : values) {
      bytes += valueHeapBytes(value);
    }
    return bytes;
  }

  private static long valueHeapBytes(Object value) {
    if (value == null || value instanceof Boolean) {
      return 0;
    } else if (value instanceof String s) {
      int length = s.length();
      long perChar = 1;
      for (int i = 0; i < length; i++) {
        if (s.charAt(i) > 0xFF) {
          perChar = 2;
          break;
        }
      }
      return 24 + align(16 + perChar * length);
    } else if (value instanceof Integer
        || value instanceof Short
        || value instanceof Byte
        || value instanceof Float) {
      return 16;
    } else if (value instanceof Long || value instanceof Double) {
      return 24;
    } else if (value instanceof byte[] b) {
      return align(16 + (long) b.length);
    } else if (value instanceof java.math.BigDecimal d) {
      // Up to 18 digits the unscaled value is a long inside the BigDecimal; beyond, a BigInteger.
      return d.precision() <= 18 ? 40 : 40 + 40 + align(16 + 4L * (d.precision() / 9 + 1));
    } else if (value instanceof java.time.LocalDateTime) {
      return 72; // itself, a LocalDate and a LocalTime
    } else if (value instanceof java.time.LocalDate || value instanceof java.time.Instant) {
      return 24;
    } else if (value instanceof GenericRow r) {
      return r.heapBytes();
    }
    return 32;
  }

  private static long align(long bytes) {
    return (bytes + 7) & ~7L;
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
