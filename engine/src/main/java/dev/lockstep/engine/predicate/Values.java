package dev.lockstep.engine.predicate;

import java.util.Arrays;

/**
 * The order predicates and statistics compare values in, one for every column type: numbers, dates,
 * timestamps and booleans by their natural order (TINYINT and SMALLINT signed; DOUBLE by {@link
 * Double#compare} and FLOAT by {@link Float#compare}: -0.0 below 0.0, NaN above every other value
 * and equal to itself), DECIMAL by value (scale ignored), STRING, CHAR and VARCHAR by Unicode code
 * point (the order of their UTF-8 bytes, which Parquet's statistics use too; CHAR's padding blanks
 * count), TIMESTAMP_LTZ by instant, BYTES unsigned lexicographically.
 */
public final class Values {

  private Values() {}

  /** Compares two non-null values of one column type. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static int compare(Object a, Object b) {
    if (a instanceof String) {
      return compareStrings((String) a, (String) b);
    }
    if (a instanceof byte[]) {
      return Arrays.compareUnsigned((byte[]) a, (byte[]) b);
    }
    if (a instanceof Double) {
      return Double.compare((Double) a, (Double) b);
    }
    if (a instanceof Float) {
      return Float.compare((Float) a, (Float) b);
    }
    return ((Comparable) a).compareTo(b);
  }

  /** Code point order (UTF-16 code unit order differs for characters above U+FFFF). */
  public static int compareStrings(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        boolean sx = Character.isSurrogate(x);
        boolean sy = Character.isSurrogate(y);
        if (sx != sy) {
          // A surrogate (a code point above U+FFFF) sorts after every BMP character.
          return sx ? 1 : -1;
        }
        return Character.compare(x, y);
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  /** Whether two non-null values are equal in {@link #compare}'s order. */
  public static boolean equal(Object a, Object b) {
    return compare(a, b) == 0;
  }
}
