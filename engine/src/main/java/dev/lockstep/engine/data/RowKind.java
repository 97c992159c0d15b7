package dev.lockstep.engine.data;

/**
 * What a written row does to its key, as in a changelog (the names and byte values are Apache
 * Paimon's and Flink's): {@code +I} insert, {@code -U} update-before, {@code +U} update-after,
 * {@code -D} delete.
 *
 * <p>In a primary-key table the row that wins its key (see {@code scan.DeduplicateMerger}) decides
 * the read: an {@linkplain #isAdd() add} ({@code +I}, {@code +U}) is the key's row, a retraction
 * ({@code -U}, {@code -D}) removes the key. Append tables store only adds.
 */
public enum RowKind {
  INSERT("+I", (byte) 0),
  UPDATE_BEFORE("-U", (byte) 1),
  UPDATE_AFTER("+U", (byte) 2),
  DELETE("-D", (byte) 3);

  private static final RowKind[] BY_VALUE = values();

  private final String shortString;
  private final byte value;

  RowKind(String shortString, byte value) {
    this.shortString = shortString;
    this.value = value;
  }

  /** {@code +I}, {@code -U}, {@code +U} or {@code -D}. */
  public String shortString() {
    return shortString;
  }

  /** The value stored in data files: 0..3 in the order above. */
  public byte toByteValue() {
    return value;
  }

  /** {@code +I} and {@code +U}: the row is the key's value. */
  public boolean isAdd() {
    return this == INSERT || this == UPDATE_AFTER;
  }

  /** {@code -U} and {@code -D}: the row removes its key. */
  public boolean isRetract() {
    return !isAdd();
  }

  /**
   * The kind stored as {@code value}.
   *
   * @throws IllegalArgumentException for a value outside 0..3
   */
  public static RowKind fromByteValue(int value) {
    if (value < 0 || value >= BY_VALUE.length) {
      throw new IllegalArgumentException(
          "Row kind value "
              + value
              + " is unknown; it must be 0"
              + " (+I), 1 (-U), 2 (+U) or 3 (-D).");
    }
    return BY_VALUE[value];
  }

  /**
   * The kind written as {@code +I}, {@code -U}, {@code +U} or {@code -D} (surrounding blanks
   * ignored).
   *
   * @throws IllegalArgumentException naming the four accepted spellings
   */
  public static RowKind fromShortString(String text) {
    String t = text == null ? "" : text.trim();
    for (RowKind kind : BY_VALUE) {
      if (kind.shortString.equals(t)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "Row kind '"
            + text
            + "' is unknown; write +I (insert), -U"
            + " (update-before), +U (update-after) or -D (delete).");
  }

  @Override
  public String toString() {
    return shortString;
  }
}
