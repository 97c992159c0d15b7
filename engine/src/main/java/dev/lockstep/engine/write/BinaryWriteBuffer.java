package dev.lockstep.engine.write;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.DataTypeRoot;
import dev.lockstep.engine.types.RowType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The write buffer of one primary-key bucket ({@link MergeTreeWriter}): rows serialized into byte
 * pages that the {@link WriteBufferPool} hands out and takes back after a flush, so that a buffered
 * row is a few dozen bytes in a long-lived page instead of an object graph of boxed values that the
 * collector has to copy and promote.
 *
 * <p>A row is laid out as a null bitmap (one bit a column), one 8-byte slot a column, and a
 * variable part: fixed-width values (INT, BIGINT, DOUBLE, BOOLEAN, TINYINT, SMALLINT, FLOAT, DATE
 * as its epoch day, DECIMAL of precision up to 18 as its unscaled value) sit in their slot;
 * strings, bytes, wider decimals and timestamps sit in the variable part, their slot holding
 * (offset within the row, length). Strings are stored as Latin-1 bytes when every character fits,
 * else as UTF-16 code units, so that every {@code String} comes back equal. A row never spans pages
 * (a row larger than a page gets a page of its own). Beside the pages, per row: its address, its
 * kind and a normalized prefix of its first key column (a {@code long} whose signed order agrees
 * with the column's order), on which the flush sorts before it compares whole keys.
 *
 * <p>Values come back as the classes {@link DataTypeRoot} names, equal to what was written. Not
 * thread-safe.
 */
final class BinaryWriteBuffer {

  /** Bytes per page, the pool's unit. */
  static final int PAGE_BYTES = 32 * 1024;

  /**
   * Bytes of a buffer's first page, not from the pool: a bucket that buffers a few rows holds a
   * small page (the last page of each buffer is partly empty and not counted against the bound).
   */
  static final int FIRST_PAGE_BYTES = 4 * 1024;

  /** Rows of index the arrays keep after a clear that used less than a quarter of them. */
  private static final int INITIAL_ROWS = 1024;

  /** Bytes accounted per row besides its serialized bytes: address, key prefix and kind. */
  static final int INDEX_BYTES = 8 + 8 + 1;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  /** In a string's slot, the length's flag for UTF-16 code units (else Latin-1 bytes). */
  private static final int UTF16 = 1 << 31;

  private final DataTypeRoot[] roots;
  private final DataType[] types;
  private final int fields;
  private final int bitmapBytes;
  private final int fixedBytes;
  private final int[] keyIndexes;
  private final DataTypeRoot leadingKeyRoot;

  /** Whether equal prefixes mean equal first key columns. */
  private final boolean exactPrefix;

  private final WriteBufferPool pool;

  private final List<byte[]> pages = new ArrayList<>();
  private byte[] page;
  private int pageIndex = -1;
  private int pageUsed;

  /** Per row: page index in the high 32 bits, offset in the low 32. */
  private long[] addresses = new long[INITIAL_ROWS];

  private long[] prefixes = new long[INITIAL_ROWS];
  private byte[] kinds = new byte[INITIAL_ROWS];
  private int size;

  /** Per column of the row being added: the variable part's length. */
  private final int[] varLengths;

  BinaryWriteBuffer(RowType rowType, int[] keyIndexes, WriteBufferPool pool) {
    this.fields = rowType.size();
    this.types = new DataType[fields];
    this.roots = new DataTypeRoot[fields];
    for (int i = 0; i < fields; i++) {
      types[i] = rowType.field(i).type();
      roots[i] = types[i].root();
    }
    this.bitmapBytes = (fields + 7) / 8;
    this.fixedBytes = bitmapBytes + 8 * fields;
    this.keyIndexes = keyIndexes.clone();
    this.leadingKeyRoot = roots[keyIndexes[0]];
    this.exactPrefix = exactPrefix(types[keyIndexes[0]]);
    this.pool = pool;
    this.varLengths = new int[fields];
  }

  int size() {
    return size;
  }

  /** Whether the first key column's prefixes fit an {@code int}: a flush sorts them packed. */
  boolean intPrefix() {
    return switch (leadingKeyRoot) {
      case INT, TINYINT, SMALLINT, BOOLEAN -> true;
      default -> false;
    };
  }

  /** Whether equal prefixes mean equal first key columns. */
  boolean exactPrefix() {
    return exactPrefix;
  }

  private static boolean exactPrefix(DataType type) {
    return switch (type.root()) {
      case INT, TINYINT, SMALLINT, BOOLEAN, BIGINT, DATE, DOUBLE, FLOAT -> true;
      case DECIMAL -> type.precision() <= 18;
      default -> false;
    };
  }

  /**
   * Appends {@code row} of kind {@code kind}; the row may be reused by the caller afterwards.
   *
   * @return the bytes the row takes in the buffer (serialized and index)
   */
  long add(GenericRow row, RowKind kind) {
    int length = fixedBytes;
    for (int i = 0; i < fields; i++) {
      Object value = row.get(i);
      int var = value == null ? 0 : varLength(i, value);
      varLengths[i] = var;
      length += var;
    }
    int offset = reserve(length);
    byte[] p = page;
    Arrays.fill(p, offset, offset + bitmapBytes, (byte) 0);
    int var = offset + fixedBytes;
    for (int i = 0; i < fields; i++) {
      Object value = row.get(i);
      int slot = offset + bitmapBytes + 8 * i;
      if (value == null) {
        p[offset + (i >>> 3)] |= (byte) (1 << (i & 7));
        LONGS.set(p, slot, 0L);
        continue;
      }
      switch (roots[i]) {
        case INT -> LONGS.set(p, slot, (long) (Integer) value);
        case BIGINT -> LONGS.set(p, slot, (long) (Long) value);
        case DOUBLE -> LONGS.set(p, slot, Double.doubleToRawLongBits((Double) value));
        case BOOLEAN -> LONGS.set(p, slot, (Boolean) value ? 1L : 0L);
        case TINYINT -> LONGS.set(p, slot, (long) (Byte) value);
        case SMALLINT -> LONGS.set(p, slot, (long) (Short) value);
        case FLOAT ->
            LONGS.set(p, slot, (long) Float.floatToRawIntBits((Float) value) & 0xFFFFFFFFL);
        case DATE -> LONGS.set(p, slot, ((LocalDate) value).toEpochDay());
        case STRING, CHAR, VARCHAR -> {
          String s = (String) value;
          int n = s.length();
          boolean utf16 = varLengths[i] != n;
          if (utf16) {
            for (int c = 0; c < n; c++) {
              char ch = s.charAt(c);
              p[var + 2 * c] = (byte) ch;
              p[var + 2 * c + 1] = (byte) (ch >>> 8);
            }
          } else {
            for (int c = 0; c < n; c++) {
              p[var + c] = (byte) s.charAt(c);
            }
          }
          LONGS.set(
              p, slot, ((long) (var - offset) << 32) | (((utf16 ? UTF16 : 0) | n) & 0xFFFFFFFFL));
          var += varLengths[i];
        }
        case BYTES -> {
          byte[] b = (byte[]) value;
          System.arraycopy(b, 0, p, var, b.length);
          LONGS.set(p, slot, ((long) (var - offset) << 32) | b.length);
          var += b.length;
        }
        case DECIMAL -> {
          BigDecimal d = (BigDecimal) value;
          if (types[i].precision() <= 18) {
            LONGS.set(p, slot, d.unscaledValue().longValueExact());
          } else {
            byte[] b = d.unscaledValue().toByteArray();
            System.arraycopy(b, 0, p, var, b.length);
            LONGS.set(p, slot, ((long) (var - offset) << 32) | b.length);
            var += b.length;
          }
        }
        case TIMESTAMP -> {
          LocalDateTime t = (LocalDateTime) value;
          LONGS.set(p, var, t.toEpochSecond(ZoneOffset.UTC));
          INTS.set(p, var + 8, t.getNano());
          LONGS.set(p, slot, ((long) (var - offset) << 32) | 12);
          var += 12;
        }
        case TIMESTAMP_LTZ -> {
          Instant t = (Instant) value;
          LONGS.set(p, var, t.getEpochSecond());
          INTS.set(p, var + 8, t.getNano());
          LONGS.set(p, slot, ((long) (var - offset) << 32) | 12);
          var += 12;
        }
        default -> throw new IllegalStateException("No binary layout for " + roots[i]);
      }
    }
    if (size == addresses.length) {
      int grown = size * 2;
      addresses = Arrays.copyOf(addresses, grown);
      prefixes = Arrays.copyOf(prefixes, grown);
      kinds = Arrays.copyOf(kinds, grown);
    }
    addresses[size] = ((long) pageIndex << 32) | offset;
    prefixes[size] = prefix(row.get(keyIndexes[0]));
    kinds[size] = kind.toByteValue();
    size++;
    return length + INDEX_BYTES;
  }

  /** The bytes of the variable part of non-null {@code value} in column {@code i}. */
  private int varLength(int i, Object value) {
    switch (roots[i]) {
      case STRING, CHAR, VARCHAR -> {
        String s = (String) value;
        int n = s.length();
        for (int c = 0; c < n; c++) {
          if (s.charAt(c) > 0xFF) {
            return 2 * n;
          }
        }
        return n;
      }
      case BYTES -> {
        return ((byte[]) value).length;
      }
      case DECIMAL -> {
        return types[i].precision() <= 18
            ? 0
            : ((BigDecimal) value).unscaledValue().bitLength() / 8 + 1;
      }
      case TIMESTAMP, TIMESTAMP_LTZ -> {
        return 12;
      }
      default -> {
        return 0;
      }
    }
  }

  /** The offset in {@link #page} of {@code length} free bytes, starting a new page if needed. */
  private int reserve(int length) {
    if (page == null || pageUsed + length > page.length) {
      int capacity = pages.isEmpty() ? FIRST_PAGE_BYTES : PAGE_BYTES;
      byte[] next =
          length > capacity
              ? new byte[length]
              : capacity == PAGE_BYTES ? pool.takePage(PAGE_BYTES) : new byte[capacity];
      pages.add(next);
      page = next;
      pageIndex = pages.size() - 1;
      pageUsed = 0;
    }
    int offset = pageUsed;
    pageUsed += length;
    return offset;
  }

  /**
   * A normalized prefix of a first key column's value: {@code a < b} in the column's order implies
   * {@code prefix(a) <= prefix(b)}; for {@link #exactPrefix()} types, equal prefixes mean equal
   * values.
   */
  long prefix(Object value) {
    if (value == null) {
      return Long.MIN_VALUE;
    }
    switch (leadingKeyRoot) {
      case INT:
        return (Integer) value;
      case BIGINT:
        return (Long) value;
      case TINYINT:
        return (Byte) value;
      case SMALLINT:
        return (Short) value;
      case BOOLEAN:
        return (Boolean) value ? 1 : 0;
      case DATE:
        return ((LocalDate) value).toEpochDay();
      case DOUBLE:
        {
          long bits = Double.doubleToLongBits((Double) value);
          return bits ^ ((bits >> 63) & Long.MAX_VALUE);
        }
      case FLOAT:
        {
          int bits = Float.floatToIntBits((Float) value);
          return bits ^ ((bits >> 31) & Integer.MAX_VALUE);
        }
      case DECIMAL:
        {
          BigInteger unscaled = ((BigDecimal) value).unscaledValue();
          return unscaled.bitLength() < 64
              ? unscaled.longValue()
              : unscaled.signum() > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
      case STRING:
      case CHAR:
      case VARCHAR:
        {
          // The first four UTF-16 code units, unsigned, zero-padded: String.compareTo's order.
          String s = (String) value;
          long p = 0;
          for (int c = 0; c < 4; c++) {
            p = (p << 16) | (c < s.length() ? s.charAt(c) : 0);
          }
          return p ^ Long.MIN_VALUE;
        }
      case BYTES:
        {
          byte[] b = (byte[]) value;
          long p = 0;
          for (int c = 0; c < 8; c++) {
            p = (p << 8) | (c < b.length ? b[c] & 0xFF : 0);
          }
          return p ^ Long.MIN_VALUE;
        }
      case TIMESTAMP:
        return ((LocalDateTime) value).toEpochSecond(ZoneOffset.UTC);
      case TIMESTAMP_LTZ:
        return ((Instant) value).getEpochSecond();
      default:
        return 0;
    }
  }

  /** The first key column's prefix of the row at {@code position}. */
  long prefixAt(int position) {
    return prefixes[position];
  }

  /** The kind of the row at {@code position}. */
  RowKind kindAt(int position) {
    return RowKind.fromByteValue(kinds[position]);
  }

  /**
   * The order of the positions by key, stably (each key's rows in write order): a sort of the
   * prefixes as primitives, then, where prefixes tie and do not settle the key, a stable sort of
   * the tied positions by their keys, compared in the pages.
   */
  int[] sortedPositions() {
    int n = size;
    int[] order = new int[n];
    if (intPrefix()) {
      long[] packed = new long[n];
      for (int i = 0; i < n; i++) {
        packed[i] = (prefixes[i] << 32) | i;
      }
      Arrays.sort(packed);
      for (int i = 0; i < n; i++) {
        order[i] = (int) packed[i];
      }
    } else {
      int[] sorted = LongKeySort.stableOrder(Arrays.copyOf(prefixes, n));
      System.arraycopy(sorted, 0, order, 0, n);
    }
    if (keyIndexes.length > 1 || !exactPrefix) {
      PositionSort.PositionComparator byKey = (a, b) -> compare(a, b, keyIndexes);
      for (int from = 0; from < n; ) {
        long p = prefixes[order[from]];
        int to = from + 1;
        while (to < n && prefixes[order[to]] == p) {
          to++;
        }
        if (to - from > 1) {
          PositionSort.sort(order, from, to, byKey);
        }
        from = to;
      }
    }
    return order;
  }

  /** Whether the rows at two positions have the same key. */
  boolean sameKey(int a, int b) {
    if (prefixes[a] != prefixes[b]) {
      return false;
    }
    return (exactPrefix && keyIndexes.length == 1) || compare(a, b, keyIndexes) == 0;
  }

  /**
   * Compares the values at {@code columns} of the rows at two positions in that order, as {@link
   * dev.lockstep.engine.data.RowComparator#compare(GenericRow, GenericRow, int[])} compares the
   * rows: nulls first.
   */
  int compare(int a, int b, int[] columns) {
    long addressA = addresses[a];
    long addressB = addresses[b];
    byte[] pa = pages.get((int) (addressA >>> 32));
    byte[] pb = pages.get((int) (addressB >>> 32));
    int oa = (int) addressA;
    int ob = (int) addressB;
    for (int column : columns) {
      int c = compareValue(column, pa, oa, pb, ob);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private boolean isNull(byte[] p, int offset, int column) {
    return (p[offset + (column >>> 3)] & (1 << (column & 7))) != 0;
  }

  private int compareValue(int i, byte[] pa, int oa, byte[] pb, int ob) {
    boolean nullA = isNull(pa, oa, i);
    boolean nullB = isNull(pb, ob, i);
    if (nullA || nullB) {
      return nullA == nullB ? 0 : nullA ? -1 : 1;
    }
    long sa = (long) LONGS.get(pa, oa + bitmapBytes + 8 * i);
    long sb = (long) LONGS.get(pb, ob + bitmapBytes + 8 * i);
    switch (roots[i]) {
      case INT:
      case BIGINT:
      case BOOLEAN:
      case TINYINT:
      case SMALLINT:
      case DATE:
        return Long.compare(sa, sb);
      case DOUBLE:
        return Double.compare(Double.longBitsToDouble(sa), Double.longBitsToDouble(sb));
      case FLOAT:
        return Float.compare(Float.intBitsToFloat((int) sa), Float.intBitsToFloat((int) sb));
      case STRING:
      case CHAR:
      case VARCHAR:
        return compareStrings(pa, oa, sa, pb, ob, sb);
      case BYTES:
        {
          int fa = oa + (int) (sa >>> 32);
          int fb = ob + (int) (sb >>> 32);
          return Arrays.compareUnsigned(pa, fa, fa + (int) sa, pb, fb, fb + (int) sb);
        }
      case DECIMAL:
        if (types[i].precision() <= 18) {
          return Long.compare(sa, sb);
        }
        return ((BigDecimal) value(i, pa, oa)).compareTo((BigDecimal) value(i, pb, ob));
      case TIMESTAMP:
      case TIMESTAMP_LTZ:
        {
          int fa = oa + (int) (sa >>> 32);
          int fb = ob + (int) (sb >>> 32);
          int c = Long.compare((long) LONGS.get(pa, fa), (long) LONGS.get(pb, fb));
          return c != 0
              ? c
              : Integer.compare((int) INTS.get(pa, fa + 8), (int) INTS.get(pb, fb + 8));
        }
      default:
        throw new IllegalStateException("No binary layout for " + roots[i]);
    }
  }

  /** Compares two stored strings by UTF-16 code units, as {@link String#compareTo} does. */
  private static int compareStrings(byte[] pa, int oa, long sa, byte[] pb, int ob, long sb) {
    int fa = oa + (int) (sa >>> 32);
    int fb = ob + (int) (sb >>> 32);
    boolean wa = ((int) sa & UTF16) != 0;
    boolean wb = ((int) sb & UTF16) != 0;
    int na = (int) sa & ~UTF16;
    int nb = (int) sb & ~UTF16;
    if (!wa && !wb) {
      return Arrays.compareUnsigned(pa, fa, fa + na, pb, fb, fb + nb);
    }
    int n = Math.min(na, nb);
    for (int c = 0; c < n; c++) {
      int ca = wa ? (pa[fa + 2 * c] & 0xFF) | (pa[fa + 2 * c + 1] & 0xFF) << 8 : pa[fa + c] & 0xFF;
      int cb = wb ? (pb[fb + 2 * c] & 0xFF) | (pb[fb + 2 * c + 1] & 0xFF) << 8 : pb[fb + c] & 0xFF;
      if (ca != cb) {
        return ca - cb;
      }
    }
    return na - nb;
  }

  /**
   * The values of the row at {@code position} in a new array of {@code fields + extra} slots (the
   * extra ones {@code null}), as the classes {@link DataTypeRoot} names.
   */
  Object[] values(int position, int extra) {
    long address = addresses[position];
    byte[] p = pages.get((int) (address >>> 32));
    int offset = (int) address;
    Object[] values = new Object[fields + extra];
    for (int i = 0; i < fields; i++) {
      if (!isNull(p, offset, i)) {
        values[i] = value(i, p, offset);
      }
    }
    return values;
  }

  /** The non-null value of column {@code i} of the row at {@code offset} of page {@code p}. */
  private Object value(int i, byte[] p, int offset) {
    long slot = (long) LONGS.get(p, offset + bitmapBytes + 8 * i);
    int from = offset + (int) (slot >>> 32);
    switch (roots[i]) {
      case INT:
        return (int) slot;
      case BIGINT:
        return slot;
      case DOUBLE:
        return Double.longBitsToDouble(slot);
      case BOOLEAN:
        return slot != 0;
      case TINYINT:
        return (byte) slot;
      case SMALLINT:
        return (short) slot;
      case FLOAT:
        return Float.intBitsToFloat((int) slot);
      case DATE:
        return LocalDate.ofEpochDay(slot);
      case STRING:
      case CHAR:
      case VARCHAR:
        {
          int n = (int) slot & ~UTF16;
          if (((int) slot & UTF16) == 0) {
            return new String(p, from, n, StandardCharsets.ISO_8859_1);
          }
          char[] chars = new char[n];
          for (int c = 0; c < n; c++) {
            chars[c] = (char) ((p[from + 2 * c] & 0xFF) | (p[from + 2 * c + 1] & 0xFF) << 8);
          }
          return new String(chars);
        }
      case BYTES:
        return Arrays.copyOfRange(p, from, from + (int) slot);
      case DECIMAL:
        if (types[i].precision() <= 18) {
          return BigDecimal.valueOf(slot, types[i].scale());
        }
        return new BigDecimal(new BigInteger(p, from, (int) slot), types[i].scale());
      case TIMESTAMP:
        return LocalDateTime.ofEpochSecond(
            (long) LONGS.get(p, from), (int) INTS.get(p, from + 8), ZoneOffset.UTC);
      case TIMESTAMP_LTZ:
        return Instant.ofEpochSecond((long) LONGS.get(p, from), (int) INTS.get(p, from + 8));
      default:
        throw new IllegalStateException("No binary layout for " + roots[i]);
    }
  }

  /** Empties the buffer and gives its pages back to the pool. */
  void clear() {
    for (byte[] p : pages) {
      if (p.length == PAGE_BYTES) {
        pool.returnPage(p);
      }
    }
    pages.clear();
    page = null;
    pageIndex = -1;
    pageUsed = 0;
    if (addresses.length > 64 * INITIAL_ROWS && size < addresses.length / 4) {
      // A bucket that once buffered many rows and now few: give the index arrays back.
      addresses = new long[INITIAL_ROWS];
      prefixes = new long[INITIAL_ROWS];
      kinds = new byte[INITIAL_ROWS];
    }
    size = 0;
  }
}
