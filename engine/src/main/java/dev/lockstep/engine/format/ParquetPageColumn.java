package dev.lockstep.engine.format;

import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.DataTypeRoot;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;

/**
 * Decodes one column chunk of a flat column straight from its (decompressed) pages: definition
 * levels through the engine's RLE/bit-packing decoder ({@link RleDecoder}), PLAIN values read off
 * the page's bytes (little-endian loads, strings decoded in place), dictionary pages decoded once
 * into the column's Java values and looked up by id, and (v2 pages) RLE booleans. These are the
 * encodings parquet-mr's writer uses for the engine's files (v1 pages) and, without its DELTA
 * encodings, for v2 pages; {@link #handles} tells the reader which chunks to give to
 * parquet-column's {@code ColumnReader} instead (RLE is otherwise only a level encoding, which is
 * how it is read for columns other than BOOLEAN).
 */
final class ParquetPageColumn {

  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle DOUBLES =
      MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle FLOATS =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long MICROS_PER_SECOND = 1_000_000L;

  private static final Set<Encoding> DECODED =
      Set.of(
          Encoding.PLAIN,
          Encoding.PLAIN_DICTIONARY,
          Encoding.RLE_DICTIONARY,
          Encoding.RLE,
          // Listed for the absent repetition levels of flat columns in v1 files.
          Encoding.BIT_PACKED);

  private final ColumnDescriptor descriptor;
  private final DataType type;
  private final DataTypeRoot root;
  private final int maxDefinition;
  private final int definitionWidth;
  private final int fixedLength;
  private final PageReader pages;
  private final Object[] dictionary;

  private final AtomicLong pagesRead;

  /** Values left in the current page. */
  private int left;

  /**
   * The row (in the row group) of the next value: each value is one row in a flat column. Pages of
   * a filtered row group read ({@link #seek}) carry their first row; the others follow on.
   */
  private long rowIndex;

  private RleDecoder definitions;
  private RleDecoder ids;
  private RleDecoder booleans;
  private byte[] data;
  private int position;
  private int bit;
  private boolean[] present = new boolean[0];

  /** Whether a column chunk of these encodings is decoded here. */
  static boolean handles(Set<Encoding> encodings) {
    return DECODED.containsAll(encodings);
  }

  ParquetPageColumn(ColumnDescriptor descriptor, DataType type, PageReader pages)
      throws IOException {
    this(descriptor, type, pages, null);
  }

  /**
   * @param pagesRead where each data page decompressed is counted, or {@code null}
   */
  ParquetPageColumn(
      ColumnDescriptor descriptor, DataType type, PageReader pages, AtomicLong pagesRead)
      throws IOException {
    this.pagesRead = pagesRead;
    this.descriptor = descriptor;
    this.type = type;
    this.root = type.root();
    this.maxDefinition = descriptor.getMaxDefinitionLevel();
    this.definitionWidth = BytesUtils.getWidthFromMaxInt(maxDefinition);
    this.fixedLength = descriptor.getPrimitiveType().getTypeLength();
    this.pages = pages;
    DictionaryPage page = pages.readDictionaryPage();
    if (page == null) {
      dictionary = null;
    } else {
      if (page.getEncoding() != Encoding.PLAIN_DICTIONARY && page.getEncoding() != Encoding.PLAIN) {
        throw unsupported(page.getEncoding());
      }
      Object[] values = new Object[page.getDictionarySize()];
      data = page.getBytes().toByteArray();
      position = 0;
      bit = 0;
      for (int i = 0; i < values.length; i++) {
        values[i] = plainValue();
      }
      data = null;
      dictionary = values;
    }
  }

  /**
   * Decodes the next {@code n} values into column {@code column} of {@code rows}. Works page run by
   * page run: the definition levels of a run first, then one loop per kind of value (dictionary
   * ids, the common plain types), so that the per-value work is a load and a box.
   */
  void read(Object[][] rows, int n, int column) throws IOException {
    int r = 0;
    while (r < n) {
      if (left == 0) {
        nextPage();
      }
      int run = Math.min(left, n - r);
      left -= run;
      rowIndex += run;
      readRun(rows, r, run, column);
      r += run;
    }
  }

  private void readRun(Object[][] rows, int from, int count, int column) throws IOException {
    boolean[] present = levels(count);
    int end = from + count;
    if (ids != null) {
      for (int r = from; r < end; r++) {
        if (present == null || present[r - from]) {
          rows[r][column] = dictionaryValue(ids.readInt());
        }
      }
      return;
    }
    if (booleans != null) {
      for (int r = from; r < end; r++) {
        if (present == null || present[r - from]) {
          rows[r][column] = booleans.readInt() != 0;
        }
      }
      return;
    }
    switch (root) {
      case BIGINT -> {
        for (int r = from; r < end; r++) {
          if (present == null || present[r - from]) {
            rows[r][column] = nextLong();
          }
        }
      }
      case INT -> {
        for (int r = from; r < end; r++) {
          if (present == null || present[r - from]) {
            rows[r][column] = nextInt();
          }
        }
      }
      case DOUBLE -> {
        for (int r = from; r < end; r++) {
          if (present == null || present[r - from]) {
            double d = (double) DOUBLES.get(data, position);
            position += 8;
            rows[r][column] = d;
          }
        }
      }
      case STRING, CHAR, VARCHAR -> {
        for (int r = from; r < end; r++) {
          if (present == null || present[r - from]) {
            int length = nextInt();
            rows[r][column] = new String(data, position, length, StandardCharsets.UTF_8);
            position += length;
          }
        }
      }
      default -> {
        for (int r = from; r < end; r++) {
          if (present == null || present[r - from]) {
            rows[r][column] = plainValue();
          }
        }
      }
    }
  }

  /**
   * Decodes the next {@code n} values, keeping only those of the rows {@code selected} marks: the
   * kept ones go to column {@code column} of {@code rows[0]}, {@code rows[1]}, ... in order; the
   * others are stepped over without building their values (a whole page run with no kept row
   * without looking at its values one by one where their width is fixed).
   *
   * @return the number of rows kept
   */
  int readSelected(Object[][] rows, boolean[] selected, int n, int column) throws IOException {
    int r = 0;
    int kept = 0;
    while (r < n) {
      if (left == 0) {
        nextPage();
      }
      int run = Math.min(left, n - r);
      left -= run;
      rowIndex += run;
      boolean any = false;
      for (int i = r; i < r + run; i++) {
        if (selected[i]) {
          any = true;
          break;
        }
      }
      boolean[] present = levels(run);
      if (!any) {
        skipValues(present == null ? run : count(present, run));
      } else {
        for (int i = 0; i < run; i++) {
          boolean has = present == null || present[i];
          if (selected[r + i]) {
            if (has) {
              rows[kept][column] =
                  ids != null
                      ? dictionaryValue(ids.readInt())
                      : booleans != null ? booleans.readInt() != 0 : plainValue();
            }
            kept++;
          } else if (has) {
            skipValues(1);
          }
        }
      }
      r += run;
    }
    return kept;
  }

  /** Steps over the next {@code n} values, building none of them. */
  void skip(int n) throws IOException {
    int r = 0;
    while (r < n) {
      if (left == 0) {
        nextPage();
      }
      int run = Math.min(left, n - r);
      left -= run;
      rowIndex += run;
      boolean[] present = levels(run);
      skipValues(present == null ? run : count(present, run));
      r += run;
    }
  }

  /**
   * Moves to row {@code row} of the row group (not before the current one): the rest of a page that
   * ends before it is dropped undecoded, and the values before it in its page are stepped over. In
   * a filtered row group read the page reader returns only the pages that hold selected rows, each
   * with its first row (from the offset index), so the pages in between are never read.
   *
   * @throws IOException when the column ends before that row, or a page of a filtered read does not
   *     say its first row
   */
  void seek(long row) throws IOException {
    if (row < rowIndex) {
      throw new IllegalStateException(
          "Parquet column " + Arrays.toString(descriptor.getPath()) + ": seek back to row " + row);
    }
    while (row >= rowIndex + left) {
      rowIndex += left;
      left = 0;
      DataPage page = nextPage();
      if (page.getFirstRowIndex().isEmpty()) {
        throw new IOException(
            "Parquet column "
                + Arrays.toString(descriptor.getPath())
                + ": a page of a filtered row group read without its first row");
      }
    }
    if (row < rowIndex) {
      throw new IOException(
          "Parquet column "
              + Arrays.toString(descriptor.getPath())
              + ": no page holds row "
              + row
              + " (the next starts at row "
              + rowIndex
              + ")");
    }
    if (row > rowIndex) {
      skip((int) (row - rowIndex));
    }
  }

  private static int count(boolean[] present, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) {
      if (present[i]) {
        c++;
      }
    }
    return c;
  }

  /**
   * The definition levels of the next {@code n} values as "value present" flags, or {@code null}
   * when the column is required (every value present). The array is reused.
   */
  private boolean[] levels(int n) throws IOException {
    if (maxDefinition == 0) {
      return null;
    }
    if (present.length < n) {
      present = new boolean[Math.max(n, 1024)];
    }
    definitions.readPresent(present, n, maxDefinition);
    return present;
  }

  /** Steps over {@code n} present values of the current page. */
  private void skipValues(int n) throws IOException {
    if (n == 0) {
      return;
    }
    if (ids != null) {
      for (int i = 0; i < n; i++) {
        ids.readInt();
      }
      return;
    }
    if (booleans != null) {
      for (int i = 0; i < n; i++) {
        booleans.readInt();
      }
      return;
    }
    switch (root) {
      case INT, TINYINT, SMALLINT, DATE, FLOAT -> position += 4 * n;
      case BIGINT, TIMESTAMP, TIMESTAMP_LTZ, DOUBLE -> position += 8 * n;
      case BOOLEAN -> bit += n;
      case STRING, CHAR, VARCHAR, BYTES -> {
        for (int i = 0; i < n; i++) {
          position += 4 + (int) INTS.get(data, position);
        }
      }
      case DECIMAL -> {
        int width = type.precision() <= 9 ? 4 : type.precision() <= 18 ? 8 : fixedLength;
        position += width * n;
      }
      default -> throw new IllegalArgumentException("Unsupported type " + type);
    }
  }

  private Object dictionaryValue(int id) {
    Object value = dictionary[id];
    // byte[] is mutable: every row gets its own copy.
    return root == DataTypeRoot.BYTES ? ((byte[]) value).clone() : value;
  }

  private Object plainValue() {
    switch (root) {
      case INT:
        return nextInt();
      case TINYINT:
        return (byte) nextInt();
      case SMALLINT:
        return (short) nextInt();
      case TIMESTAMP_LTZ:
        return InstantUnits.fromLong(nextLong(), type.precision());
      case FLOAT:
        float f = (float) FLOATS.get(data, position);
        position += 4;
        return f;
      case DATE:
        return LocalDate.ofEpochDay(nextInt());
      case BIGINT:
        return nextLong();
      case TIMESTAMP:
        long micros = nextLong();
        return LocalDateTime.ofEpochSecond(
            Math.floorDiv(micros, MICROS_PER_SECOND),
            (int) Math.floorMod(micros, MICROS_PER_SECOND) * 1_000,
            ZoneOffset.UTC);
      case DOUBLE:
        double d = (double) DOUBLES.get(data, position);
        position += 8;
        return d;
      case BOOLEAN:
        boolean b = ((data[position + (bit >>> 3)] >>> (bit & 7)) & 1) != 0;
        bit++;
        return b;
      case STRING:
      case CHAR:
      case VARCHAR:
        int length = nextInt();
        String s = new String(data, position, length, StandardCharsets.UTF_8);
        position += length;
        return s;
      case BYTES:
        int size = nextInt();
        byte[] bytes = Arrays.copyOfRange(data, position, position + size);
        position += size;
        return bytes;
      case DECIMAL:
        if (type.precision() <= 9) {
          return BigDecimal.valueOf(nextInt(), type.scale());
        }
        if (type.precision() <= 18) {
          return BigDecimal.valueOf(nextLong(), type.scale());
        }
        BigDecimal decimal =
            new BigDecimal(new BigInteger(data, position, fixedLength), type.scale());
        position += fixedLength;
        return decimal;
      default:
        throw new IllegalArgumentException("Unsupported type " + type);
    }
  }

  private int nextInt() {
    int v = (int) INTS.get(data, position);
    position += 4;
    return v;
  }

  private long nextLong() {
    long v = (long) LONGS.get(data, position);
    position += 8;
    return v;
  }

  private DataPage nextPage() throws IOException {
    DataPage page = pages.readPage();
    if (page == null) {
      throw new IOException(
          "Parquet column " + Arrays.toString(descriptor.getPath()) + " ended before its rows");
    }
    if (pagesRead != null) {
      pagesRead.incrementAndGet();
    }
    left = page.getValueCount();
    if (page.getFirstRowIndex().isPresent()) {
      rowIndex = page.getFirstRowIndex().get();
    }
    if (page instanceof DataPageV1 v1) {
      byte[] bytes = v1.getBytes().toByteArray();
      int offset = 0;
      if (maxDefinition > 0) {
        if (v1.getDlEncoding() != Encoding.RLE) {
          throw unsupported(v1.getDlEncoding());
        }
        int length = (int) INTS.get(bytes, 0);
        definitions = new RleDecoder(definitionWidth, bytes, 4, 4 + length);
        offset = 4 + length;
      }
      values(bytes, offset, v1.getValueEncoding());
    } else {
      DataPageV2 v2 = (DataPageV2) page;
      if (v2.isCompressed()) {
        throw new IOException(
            "Parquet column "
                + Arrays.toString(descriptor.getPath())
                + " has a compressed v2 page after decompression");
      }
      if (maxDefinition > 0) {
        byte[] levels = v2.getDefinitionLevels().toByteArray();
        definitions = new RleDecoder(definitionWidth, levels, 0, levels.length);
      }
      values(v2.getData().toByteArray(), 0, v2.getDataEncoding());
    }
    return page;
  }

  private void values(byte[] bytes, int offset, Encoding encoding) throws IOException {
    if (encoding.usesDictionary()) {
      if (dictionary == null) {
        throw new IOException(
            "Parquet column "
                + Arrays.toString(descriptor.getPath())
                + " has a dictionary-encoded page but no dictionary page");
      }
      int width = bytes[offset] & 0xff;
      booleans = null;
      ids = new RleDecoder(width, bytes, offset + 1, bytes.length);
      data = null;
    } else if (encoding == Encoding.PLAIN) {
      ids = null;
      booleans = null;
      data = bytes;
      position = offset;
      bit = 0;
    } else if (encoding == Encoding.RLE && root == DataTypeRoot.BOOLEAN) {
      // v2 pages: booleans as a length-prefixed RLE/bit-packed run of width 1.
      int length = (int) INTS.get(bytes, offset);
      ids = null;
      booleans = new RleDecoder(1, bytes, offset + 4, offset + 4 + length);
      data = null;
    } else {
      throw unsupported(encoding);
    }
  }

  private IOException unsupported(Encoding encoding) {
    return new IOException(
        "Parquet column "
            + Arrays.toString(descriptor.getPath())
            + " uses encoding "
            + encoding
            + ", which the engine's reader does not decode; the engine writes PLAIN and"
            + " dictionary pages only");
  }
}
