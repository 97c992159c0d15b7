package dev.lockstep.engine.data;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Orders rows of the same shape column by column; nulls first, {@code byte[]} unsigned
 * lexicographically, every other value by its natural order. Used for primary keys.
 */
public final class RowComparator implements Comparator<GenericRow> {

  public static final RowComparator INSTANCE = new RowComparator();

  private RowComparator() {}

  @Override
  public int compare(GenericRow a, GenericRow b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      int c = compareValues(a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  /**
   * Compares the values at {@code indexes} of two rows of the same shape, in that order, as {@link
   * #compare} compares the rows {@code a.project(indexes)} and {@code b.project(indexes)}, without
   * building them.
   */
  public static int compare(GenericRow a, GenericRow b, int[] indexes) {
    for (int index : indexes) {
      int c = compareValues(a.get(index), b.get(index));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compareValues(Object a, Object b) {
    if (a == b) {
      return 0;
    }
    if (a == null) {
      return -1;
    }
    if (b == null) {
      return 1;
    }
    if (a instanceof byte[]) {
      return Arrays.compareUnsigned((byte[]) a, (byte[]) b);
    }
    return ((Comparable) a).compareTo(b);
  }

  /**
   * A hash of the values that is the same in every JVM, for bucket assignment. Uses only hash codes
   * the JDK specifies ({@code String}, boxed numbers, {@code BigDecimal}, {@code LocalDate}, ...).
   */
  public static int stableHash(GenericRow row) {
    int h = 1;
    for (int i = 0; i < row.size(); i++) {
      h = 31 * h + valueHash(row.get(i));
    }
    return spread(h);
  }

  /**
   * {@link #stableHash(GenericRow)} of {@code row.project(indexes)}, without building that row:
   * bucket assignment hashes every written row's key.
   */
  public static int stableHash(GenericRow row, int[] indexes) {
    int h = 1;
    for (int index : indexes) {
      h = 31 * h + valueHash(row.get(index));
    }
    return spread(h);
  }

  private static int valueHash(Object v) {
    return v == null ? 0 : v instanceof byte[] ? Arrays.hashCode((byte[]) v) : v.hashCode();
  }

  /** Spreads the bits so that consecutive integer keys do not all land in neighbouring buckets. */
  private static int spread(int h) {
    h ^= (h >>> 16);
    h *= 0x85ebca6b;
    h ^= (h >>> 13);
    return h;
  }
}
