package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.DataTypeRoot;
import dev.lockstep.engine.types.RowType;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * Writes {@link GenericRow}s of a flat row type into one Parquet file by handing each value
 * straight to parquet-mr's column writer of its column, with no record assembly in between
 * (parquet-mr's {@code MessageColumnIO} record consumer walks a schema tree, marks each field and
 * writes the missing ones per record; a flat row needs none of it). The file is what {@code
 * ParquetWriter} writes for the same properties: the same column writers, pages, page indexes,
 * statistics, codec and row groups rolled at the same size.
 *
 * <p>The footer's column statistics, which parquet-mr keeps anyway, are the file's statistics
 * ({@link #stats(int)}): nothing is collected twice. DOUBLE and FLOAT columns are the exception
 * (Parquet's order of NaN and -0.0 is not the engine's), so their bounds are kept here on the
 * primitive values, in {@link Double#compare} and {@link Float#compare} order.
 *
 * <p>Not thread-safe; one instance per file.
 */
final class ParquetRowWriter implements FormatWriter {

  /** Rows whose values choose a file's encodings (see {@link #choose()}). */
  static final int SAMPLE_ROWS = 4096;

  /** Non-null sampled values a column needs before the sample may make it plain. */
  static final int SAMPLE_MIN_VALUES = 1024;

  /** The share of distinct values among the sampled ones that makes a column plain. */
  static final double PLAIN_DISTINCT_RATIO = 0.95;

  private final RowType rowType;
  private final MessageType schema;
  private final int pageSize;
  private final Set<String> plainColumns;

  /** The encodings of the file's columns: parquet-mr's defaults until {@link #choose()}. */
  private ParquetProperties props;

  /**
   * The first rows, held back until the columns' encodings are chosen from them; {@code null} once
   * they are (and {@link #columns} is open).
   */
  private GenericRow[] sample = new GenericRow[SAMPLE_ROWS];

  private int sampled;

  /** The held-back rows' values plainly encoded: the file's length until they are written. */
  private long sampledBytes;

  /** Columns written plain although a dictionary was allowed: their first rows hardly repeat. */
  private final Set<String> sampledPlain = new java.util.HashSet<>();

  private final ParquetFileWriter file;
  private final CodecFactory codecs;
  private final CodecFactory.BytesCompressor compressor;
  private final long rowGroupSize;
  private final DataTypeRoot[] roots;
  private final DataType[] types;
  private final boolean[] nullable;
  private final ColumnDescriptor[] descriptors;

  /** Definition level of a present value: 1 in an OPTIONAL (nullable) column, 0 in a REQUIRED. */
  private final int[] present;

  /** Bounds of DOUBLE and FLOAT columns ({@code float}s widened), valid where {@code seen}. */
  private final double[] doubleMin;

  private final double[] doubleMax;
  private final boolean[] seen;

  private ColumnChunkPageWriteStore pages;
  private ColumnWriteStore columns;
  private ColumnWriter[] writers;

  /** Rows in the open row group. */
  private long rows;

  private long nextSizeCheck;
  private long nextRowGroupSize;
  private long finishedRowGroupsEnd;
  private boolean closed;

  /**
   * @param pageSize the page size and the dictionary page size in bytes
   * @param plainColumns columns written without a dictionary whatever their values; the others are
   *     written plain too when the file's first rows show nearly no repeated value ({@link
   *     #SAMPLE_ROWS})
   * @param rowGroupSize the row group size in bytes ({@code parquet.block.size})
   */
  ParquetRowWriter(
      OutputFile out,
      RowType rowType,
      int pageSize,
      Set<String> plainColumns,
      CompressionCodecName codec,
      Configuration conf,
      long rowGroupSize)
      throws IOException {
    this.rowType = rowType;
    this.schema = ParquetRows.schemaOf(rowType);
    this.pageSize = pageSize;
    this.plainColumns = Set.copyOf(plainColumns);
    // Until the encodings are chosen: parquet-mr's defaults for what the file writer takes.
    this.props = ParquetProperties.builder().build();
    this.rowGroupSize = rowGroupSize;
    this.nextRowGroupSize = rowGroupSize;
    int n = rowType.size();
    this.roots = new DataTypeRoot[n];
    this.types = new DataType[n];
    this.nullable = new boolean[n];
    this.present = new int[n];
    this.doubleMin = new double[n];
    this.doubleMax = new double[n];
    this.seen = new boolean[n];
    List<ColumnDescriptor> columnList = schema.getColumns();
    this.descriptors = columnList.toArray(new ColumnDescriptor[0]);
    for (int i = 0; i < n; i++) {
      types[i] = rowType.field(i).type();
      roots[i] = types[i].root();
      nullable[i] = types[i].nullable();
      present[i] = descriptors[i].getMaxDefinitionLevel();
    }
    this.file =
        new ParquetFileWriter(
            out,
            schema,
            ParquetFileWriter.Mode.CREATE,
            rowGroupSize,
            org.apache.parquet.hadoop.ParquetWriter.MAX_PADDING_SIZE_DEFAULT,
            props.getColumnIndexTruncateLength(),
            props.getStatisticsTruncateLength(),
            props.getPageWriteChecksumEnabled());
    file.start();
    this.codecs = new CodecFactory(conf, pageSize);
    this.compressor = codecs.getCompressor(codec);
  }

  private void startRowGroup() {
    pages =
        new ColumnChunkPageWriteStore(
            compressor,
            schema,
            props.getAllocator(),
            props.getColumnIndexTruncateLength(),
            props.getPageWriteChecksumEnabled());
    columns = props.newColumnWriteStore(schema, pages, pages);
    writers = new ColumnWriter[descriptors.length];
    for (int i = 0; i < descriptors.length; i++) {
      writers[i] = columns.getColumnWriter(descriptors[i]);
    }
    rows = 0;
    nextSizeCheck = props.getMinRowCountForPageSizeCheck();
  }

  @Override
  public void write(GenericRow row) throws IOException {
    if (sample != null) {
      check(row);
      sample[sampled++] = row;
      if (sampled == SAMPLE_ROWS) {
        choose();
      }
      return;
    }
    // Checked before any value is written, so that a refused row leaves no partial record.
    for (int i = 0; i < roots.length; i++) {
      if (!nullable[i] && row.get(i) == null) {
        refuseNull(row, i);
      }
    }
    writeRow(row);
  }

  private void refuseNull(GenericRow row, int column) {
    DataField field = rowType.field(column);
    throw new IllegalArgumentException(
        "Column '" + field.name() + "' is " + field.type() + " but the row holds null: " + row);
  }

  /** A held-back row is written later, so it is checked whole now: NULLs and value classes. */
  private void check(GenericRow row) {
    if (row.size() != roots.length) {
      throw new IllegalArgumentException(
          "A row of " + rowType + " has " + roots.length + " values, got " + row.size());
    }
    for (int i = 0; i < roots.length; i++) {
      Object value = row.get(i);
      if (value == null) {
        if (!nullable[i]) {
          refuseNull(row, i);
        }
      } else if (roots[i].javaClass().isInstance(value)) {
        sampledBytes += plainSize(i, value);
      } else {
        DataField field = rowType.field(i);
        throw new IllegalArgumentException(
            "Column '"
                + field.name()
                + "' is "
                + field.type()
                + " and takes a "
                + roots[i].javaClass().getSimpleName()
                + ", not a "
                + value.getClass().getSimpleName());
      }
    }
  }

  /**
   * Chooses the columns' encodings from the held-back rows and writes them: a column that may use a
   * dictionary is written plain when at least {@link #PLAIN_DISTINCT_RATIO} of its non-null sampled
   * values are distinct (and there are at least {@link #SAMPLE_MIN_VALUES}). parquet-mr would fill
   * a dictionary with them until it outgrows the dictionary page or the first page is written, then
   * re-encode everything plain: for a key, an id or a random text, every file paid both.
   */
  private void choose() throws IOException {
    ParquetProperties.Builder builder =
        ParquetProperties.builder()
            .withPageSize(pageSize)
            .withDictionaryPageSize(pageSize)
            .withDictionaryEncoding(true)
            .withValuesWriterFactory(new ParquetPlainValues.Factory());
    for (int i = 0; i < roots.length; i++) {
      String name = rowType.field(i).name();
      if (plainColumns.contains(name)) {
        builder = builder.withDictionaryEncoding(name, false);
      } else if (roots[i] != DataTypeRoot.BOOLEAN && nearlyDistinct(i)) {
        sampledPlain.add(name);
        builder = builder.withDictionaryEncoding(name, false);
      }
    }
    props = builder.build();
    GenericRow[] rows = sample;
    int n = sampled;
    sample = null;
    sampled = 0;
    startRowGroup();
    for (int r = 0; r < n; r++) {
      writeRow(rows[r]);
    }
  }

  /** The bytes of a value plainly encoded, as parquet-mr would buffer it. */
  private int plainSize(int column, Object value) {
    return switch (roots[column]) {
      case BIGINT, DOUBLE, TIMESTAMP, TIMESTAMP_LTZ -> 8;
      case BOOLEAN -> 1;
      case STRING, CHAR, VARCHAR -> 4 + ((String) value).length();
      case BYTES -> 4 + ((byte[]) value).length;
      case DECIMAL ->
          types[column].precision() <= 9
              ? 4
              : types[column].precision() <= 18
                  ? 8
                  : ParquetRows.decimalBytes(types[column].precision());
      default -> 4;
    };
  }

  private boolean nearlyDistinct(int column) {
    java.util.HashSet<Object> distinct = new java.util.HashSet<>(sampled * 2);
    int values = 0;
    for (int r = 0; r < sampled; r++) {
      Object v = sample[r].get(column);
      if (v != null) {
        values++;
        distinct.add(v instanceof byte[] ? java.nio.ByteBuffer.wrap((byte[]) v) : v);
      }
    }
    return values >= SAMPLE_MIN_VALUES && distinct.size() >= PLAIN_DISTINCT_RATIO * values;
  }

  /** Columns this file writes plain because their first rows hardly repeat (for tests). */
  Set<String> sampledPlainColumns() {
    return Set.copyOf(sampledPlain);
  }

  private void writeRow(GenericRow row) throws IOException {
    int n = roots.length;
    for (int i = 0; i < n; i++) {
      Object value = row.get(i);
      ColumnWriter w = writers[i];
      if (value == null) {
        w.writeNull(0, 0);
        continue;
      }
      int d = present[i];
      switch (roots[i]) {
        case INT -> w.write(((Integer) value).intValue(), 0, d);
        case BIGINT -> w.write(((Long) value).longValue(), 0, d);
        case STRING, CHAR, VARCHAR ->
            w.write(
                // An array-backed Binary: Binary.fromString's wraps a ByteBuffer per value.
                Binary.fromConstantByteArray(((String) value).getBytes(StandardCharsets.UTF_8)),
                0,
                d);
        case DOUBLE -> {
          double x = (Double) value;
          bound(i, x);
          w.write(x, 0, d);
        }
        case FLOAT -> {
          float x = (Float) value;
          bound(i, x);
          w.write(x, 0, d);
        }
        case BOOLEAN -> w.write(((Boolean) value).booleanValue(), 0, d);
        case BYTES -> w.write(Binary.fromReusedByteArray((byte[]) value), 0, d);
        case DECIMAL -> writeDecimal(w, types[i], (BigDecimal) value, d);
        case DATE -> w.write((int) ((LocalDate) value).toEpochDay(), 0, d);
        case TIMESTAMP -> {
          LocalDateTime t = (LocalDateTime) value;
          w.write(t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1_000, 0, d);
        }
        case TINYINT -> w.write((int) (Byte) value, 0, d);
        case SMALLINT -> w.write((int) (Short) value, 0, d);
        case TIMESTAMP_LTZ ->
            w.write(InstantUnits.toLong((java.time.Instant) value, types[i].precision()), 0, d);
        default -> throw new IllegalArgumentException("Unsupported type " + types[i]);
      }
    }
    columns.endRecord();
    rows++;
    if (rows >= nextSizeCheck) {
      checkRowGroupSize();
    }
  }

  private static void writeDecimal(ColumnWriter w, DataType type, BigDecimal value, int d) {
    BigInteger unscaled = value.unscaledValue();
    if (type.precision() <= 9) {
      w.write(unscaled.intValueExact(), 0, d);
    } else if (type.precision() <= 18) {
      w.write(unscaled.longValueExact(), 0, d);
    } else {
      w.write(
          Binary.fromConstantByteArray(
              fixedBytes(unscaled, ParquetRows.decimalBytes(type.precision()))),
          0,
          d);
    }
  }

  /** Big-endian two's complement of {@code unscaled}, sign-extended to {@code length} bytes. */
  static byte[] fixedBytes(BigInteger unscaled, int length) {
    byte[] minimal = unscaled.toByteArray();
    byte[] bytes = new byte[length];
    byte pad = (byte) (unscaled.signum() < 0 ? 0xFF : 0);
    int offset = length - minimal.length;
    for (int i = 0; i < offset; i++) {
      bytes[i] = pad;
    }
    System.arraycopy(minimal, 0, bytes, offset, minimal.length);
    return bytes;
  }

  private void bound(int i, double x) {
    if (!seen[i]) {
      seen[i] = true;
      doubleMin[i] = x;
      doubleMax[i] = x;
    } else if (Double.compare(x, doubleMin[i]) < 0) {
      doubleMin[i] = x;
    } else if (Double.compare(x, doubleMax[i]) > 0) {
      doubleMax[i] = x;
    }
  }

  /**
   * Closes the row group once its buffered pages reach the row group size (less two rows' worth, so
   * that it does not overshoot), and otherwise picks the row count of the next check: halfway to
   * where the rows so far say the size is reached, within parquet-mr's page-size check bounds.
   */
  private void checkRowGroupSize() throws IOException {
    long buffered = columns.getBufferedSize();
    long perRow = Math.max(1, buffered / rows);
    if (buffered > nextRowGroupSize - 2 * perRow) {
      flushRowGroup();
      startRowGroup();
      return;
    }
    long toGo = (nextRowGroupSize - buffered) / perRow / 2;
    nextSizeCheck =
        rows
            + Math.min(
                props.getMaxRowCountForPageSizeCheck(),
                Math.max(props.getMinRowCountForPageSizeCheck(), toGo));
  }

  private void flushRowGroup() throws IOException {
    if (rows > 0) {
      file.startBlock(rows);
      columns.flush();
      pages.flushToFileWriter(file);
      file.endBlock();
      nextRowGroupSize = Math.min(file.getNextRowGroupSize(), rowGroupSize);
    }
    // The flushed store is dropped, not closed (closing flushes its columns again), as parquet-mr
    // drops its own.
    finishedRowGroupsEnd = file.getPos();
  }

  @Override
  public long length() {
    // Bytes of the finished row groups plus the encoded (not yet compressed) buffered pages:
    // above the final size while a row group is open, so files roll a little early. Held-back
    // rows count as their values plainly encoded.
    if (closed) {
      return finishedRowGroupsEnd;
    }
    return columns == null ? sampledBytes : finishedRowGroupsEnd + columns.getBufferedSize();
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (sample != null) {
        choose();
      }
      flushRowGroup();
      file.end(Map.of());
      finishedRowGroupsEnd = file.getPos();
    } finally {
      codecs.release();
    }
  }

  /** The footer of the closed file. */
  ParquetMetadata footer() {
    return file.getFooter();
  }

  @Override
  public boolean keepsStats() {
    return true;
  }

  @Override
  public FieldStats[] stats(int count) {
    if (!closed) {
      throw new IllegalStateException("Statistics are known once the file is closed");
    }
    return statsOf(footer(), rowType, count, this::doubleBounds);
  }

  private FieldStats doubleBounds(int column, Long nulls) {
    if (!seen[column]) {
      return new FieldStats(null, null, nulls);
    }
    if (roots[column] == DataTypeRoot.FLOAT) {
      return new FieldStats((float) doubleMin[column], (float) doubleMax[column], nulls);
    }
    return new FieldStats(doubleMin[column], doubleMax[column], nulls);
  }

  /** The bounds of a DOUBLE or FLOAT column, kept apart from Parquet's. */
  interface FloatingBounds {
    FieldStats of(int column, Long nulls);
  }

  /**
   * The statistics of the first {@code count} columns of a file over all its row groups: null
   * counts summed, the least minimum and the greatest maximum, converted to the engine's values
   * ({@link ParquetRows#valueOf}); DOUBLE and FLOAT bounds from {@code floating}. A column whose
   * statistics a row group lacks is {@link FieldStats#UNKNOWN}.
   */
  static FieldStats[] statsOf(
      ParquetMetadata footer, RowType rowType, int count, FloatingBounds floating) {
    FieldStats[] result = new FieldStats[count];
    List<BlockMetaData> blocks = footer.getBlocks();
    for (int c = 0; c < count; c++) {
      DataType type = rowType.field(c).type();
      boolean isFloating = type.root() == DataTypeRoot.DOUBLE || type.root() == DataTypeRoot.FLOAT;
      long nulls = 0;
      Object min = null;
      Object max = null;
      boolean known = true;
      for (BlockMetaData block : blocks) {
        ColumnChunkMetaData chunk = block.getColumns().get(c);
        Statistics<?> s = chunk.getStatistics();
        if (s == null || !s.isNumNullsSet()) {
          known = false;
          break;
        }
        nulls += s.getNumNulls();
        if (isFloating || !s.hasNonNullValue()) {
          continue;
        }
        Object lo = ParquetRows.valueOf(type, s.genericGetMin());
        Object hi = ParquetRows.valueOf(type, s.genericGetMax());
        if (min == null || dev.lockstep.engine.predicate.Values.compare(lo, min) < 0) {
          min = lo;
        }
        if (max == null || dev.lockstep.engine.predicate.Values.compare(hi, max) > 0) {
          max = hi;
        }
      }
      if (!known) {
        result[c] = FieldStats.UNKNOWN;
      } else if (isFloating) {
        result[c] = floating.of(c, nulls);
      } else {
        result[c] = new FieldStats(min, max, nulls);
      }
    }
    return result;
  }
}
