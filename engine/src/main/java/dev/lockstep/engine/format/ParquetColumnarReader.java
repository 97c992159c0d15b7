package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.MessageType;
import org.roaringbitmap.RoaringBitmap;

/**
 * Reads a Parquet file column by column (the columnar read path): per row group, one decoder per
 * requested column over the row group's pages, and per batch of up to {@link #BATCH} rows each
 * column is decoded in one loop straight into the rows' value arrays, one column after the other.
 * This replaces parquet-mr's record assembly (a per-record state machine calling a converter per
 * value) for the flat schemas the engine writes; every column type of {@link ParquetRows} is
 * handled. A column chunk whose encodings {@link ParquetPageColumn} knows (PLAIN, dictionary: all
 * the engine writes) is decoded by it straight from the pages; any other chunk (files of other
 * writers, for example DELTA encodings) through parquet-column's {@link ColumnReader}.
 *
 * <p>What it saves and what it does not: the rows are still {@link GenericRow}s of Java values (the
 * engine's one row class), so every returned value is still a Java object; but the per-value
 * assembly is gone, dictionary pages are decoded once per column chunk, and columns not requested
 * are never decoded (nor fetched: the requested schema). Row groups are skipped by their footer
 * statistics exactly as before, and counted in the same {@link ReadOptions#metrics()}.
 *
 * <p>Late materialization: with a {@link ReadOptions#rowFilter()} (whose columns are all requested)
 * or {@link ReadOptions#deleted()} rows, each batch decodes the filter's columns first (into reused
 * arrays), evaluates the filter and the deleted positions on them, and decodes the other requested
 * columns only for the rows kept: the values of the rows left out are stepped over without being
 * built (no strings, no boxes), a page run without a kept row at once where the values have a fixed
 * width. Positions count every row of the file, skipped row groups included.
 *
 * <p>Page skipping: a row group that its footer statistics do not rule out is filtered by the
 * file's page indexes ({@link PageIndexes}, with {@link ReadOptions#skipFilter()}): only the pages
 * of the requested columns that hold rows which may match are fetched and decompressed
 * (parquet-mr's filtered row-group read), and the rows are decoded run by run, every column moved
 * to the first row of each run ({@link ParquetPageColumn#seek}), so all columns stay aligned by row
 * although their pages start at different rows. Only when every requested column chunk is decoded
 * by {@link ParquetPageColumn}; otherwise the row group is read whole. Pages read and skipped are
 * counted in {@link ReadOptions#metrics()}.
 *
 * <p>Memory: one row group's (compressed and decompressed) pages, as before, plus one batch of
 * rows.
 */
final class ParquetColumnarReader implements FormatReader {

  /** Rows decoded per batch: bounds the decoded rows held besides the row group's pages. */
  static final int BATCH = 1024;

  private static final long MICROS_PER_SECOND = 1_000_000L;

  private final ParquetFileReader file;
  private final MessageType requested;
  private final String createdBy;
  private final RowType rowType;
  private final ReadOptions options;
  private final List<BlockMetaData> blocks;
  private final int width;
  private final int[] positions;
  private final Column[] columns;
  private final boolean pageDecoding;

  /** Late materialization: null when every row of a batch is returned. */
  private final Predicate rowFilter;

  private final RoaringBitmap deleted;
  private final boolean selecting;

  /** The columns decoded before the selection (the row filter's) and after it (the others). */
  private final Column[] filterColumns;

  private final Column[] otherColumns;
  private Object[][] scratch;
  private boolean[] selected;

  private int nextBlock;

  /** Rows left in the current run (a range of selected rows of the current row group). */
  private long rowsLeftInRun;

  /**
   * The runs of the current row group, as row ranges {@code [from, to)} in pairs, or {@code null}
   * when the row group is read whole (one run).
   */
  private long[] runs;

  private int nextRun;

  /** The file position of the first row of the current row group. */
  private long groupStart;

  /** The file position of the first row of the next row group. */
  private long nextGroupStart;

  /** The file position of the next row of the current row group to decode. */
  private long groupPosition;

  private Object[][] batch = new Object[0][];
  private int batchSize;
  private int batchPosition;

  ParquetColumnarReader(
      ParquetFileReader file,
      MessageType requested,
      RowType rowType,
      int[] positions,
      ReadOptions options) {
    this(file, requested, rowType, positions, options, true);
  }

  /**
   * @param pageDecoding whether column chunks of PLAIN and dictionary pages are decoded by {@link
   *     ParquetPageColumn} (false: every column through parquet-column's {@code ColumnReader}, for
   *     the test that compares the two)
   */
  ParquetColumnarReader(
      ParquetFileReader file,
      MessageType requested,
      RowType rowType,
      int[] positions,
      ReadOptions options,
      boolean pageDecoding) {
    this.pageDecoding = pageDecoding;
    this.file = file;
    this.requested = requested;
    this.createdBy = file.getFooter().getFileMetaData().getCreatedBy();
    this.rowType = rowType;
    this.options = options;
    this.blocks = file.getRowGroups();
    this.width = rowType.size();
    this.positions = positions;
    this.columns = new Column[positions.length];
    List<ColumnDescriptor> descriptors = requested.getColumns();
    for (int i = 0; i < positions.length; i++) {
      columns[i] = new Column(descriptors.get(i), rowType.field(positions[i]).type(), positions[i]);
    }
    Predicate filter = options.rowFilter();
    Set<Integer> filtered = filter == null ? Set.of() : filter.columns();
    List<Column> first = new ArrayList<>();
    List<Column> rest = new ArrayList<>();
    for (Column column : columns) {
      (filtered.contains(column.position) ? first : rest).add(column);
    }
    if (first.size() < filtered.size()) {
      // A filter column that is not read would evaluate as NULL: leave the filter to the caller.
      filter = null;
      first.clear();
      rest = List.of(columns);
    }
    this.rowFilter = filter;
    this.deleted =
        options.deleted() == null || options.deleted().isEmpty() ? null : options.deleted();
    this.selecting = rowFilter != null || deleted != null;
    this.filterColumns = first.toArray(new Column[0]);
    this.otherColumns = rest.toArray(new Column[0]);
  }

  @Override
  public GenericRow next() throws IOException {
    if (batchPosition == batchSize && !nextBatch()) {
      return null;
    }
    Object[] values = batch[batchPosition];
    batch[batchPosition++] = null;
    return GenericRow.wrap(values);
  }

  private boolean nextBatch() throws IOException {
    if (selecting) {
      return nextSelectedBatch();
    }
    while (rowsLeftInRun == 0) {
      if (!nextRun()) {
        return false;
      }
    }
    int n = (int) Math.min(BATCH, rowsLeftInRun);
    if (batch.length < n) {
      batch = new Object[n][];
    }
    for (int r = 0; r < n; r++) {
      batch[r] = new Object[width];
    }
    for (Column column : columns) {
      column.read(batch, n);
    }
    rowsLeftInRun -= n;
    groupPosition += n;
    batchSize = n;
    batchPosition = 0;
    return true;
  }

  /**
   * The next batch of kept rows (late materialization): the filter's columns of up to {@link
   * #BATCH} rows into {@link #scratch}, the selection, then the other columns for the kept rows
   * only. Batches where no row is kept are stepped over.
   */
  private boolean nextSelectedBatch() throws IOException {
    if (scratch == null) {
      scratch = new Object[BATCH][width];
      selected = new boolean[BATCH];
    }
    while (true) {
      while (rowsLeftInRun == 0) {
        if (!nextRun()) {
          return false;
        }
      }
      int n = (int) Math.min(BATCH, rowsLeftInRun);
      for (Column column : filterColumns) {
        int p = column.position;
        for (int r = 0; r < n; r++) {
          scratch[r][p] = null;
        }
        column.read(scratch, n);
      }
      long first = groupPosition;
      int kept = 0;
      for (int r = 0; r < n; r++) {
        boolean keep =
            (deleted == null || !deleted.contains((int) (first + r)))
                && (rowFilter == null || rowFilter.test(GenericRow.wrap(scratch[r])));
        selected[r] = keep;
        if (keep) {
          kept++;
        }
      }
      rowsLeftInRun -= n;
      groupPosition += n;
      if (kept == 0) {
        for (Column column : otherColumns) {
          column.skip(n);
        }
        continue;
      }
      if (batch.length < kept) {
        batch = new Object[Math.max(kept, BATCH)][];
      }
      int j = 0;
      for (int r = 0; r < n; r++) {
        if (selected[r]) {
          batch[j++] = scratch[r].clone();
        }
      }
      for (Column column : otherColumns) {
        column.readSelected(batch, selected, n);
      }
      batchSize = kept;
      batchPosition = 0;
      return true;
    }
  }

  /**
   * Moves to the next run of selected rows: the next range of the current row group (every column
   * moved to its first row), or the first of the next row group read.
   */
  private boolean nextRun() throws IOException {
    while (true) {
      if (runs != null && nextRun < runs.length) {
        long from = runs[nextRun];
        long to = runs[nextRun + 1];
        nextRun += 2;
        for (Column column : columns) {
          column.seek(from);
        }
        groupPosition = groupStart + from;
        rowsLeftInRun = to - from;
        return true;
      }
      runs = null;
      if (!nextRowGroup()) {
        return false;
      }
      if (runs == null) {
        return true;
      }
    }
  }

  /**
   * Opens the next row group that may hold a row of the skip filter: row groups are skipped by
   * their footer statistics, then, when the file has column and offset indexes, pages by theirs
   * ({@link PageIndexes}): only the pages holding rows that may match are fetched and decompressed,
   * and {@link #runs} lists those rows. Without a run list the whole row group is one run, started
   * here.
   */
  private boolean nextRowGroup() throws IOException {
    while (nextBlock < blocks.size()) {
      int index = nextBlock++;
      BlockMetaData block = blocks.get(index);
      groupStart = nextGroupStart;
      groupPosition = groupStart;
      nextGroupStart += block.getRowCount();
      if (options.skipFilter() != null
          && !options.skipFilter().mightMatch(ParquetRows.statsOf(block, rowType))) {
        if (options.metrics() != null) {
          options.metrics().rowGroupsSkipped.incrementAndGet();
        }
        continue;
      }
      PageIndexes.Selection selection =
          options.skipFilter() != null && pageDecodable(block)
              ? PageIndexes.select(file, index, block, options.skipFilter(), columns(), rowType)
              : null;
      if (selection != null && options.metrics() != null) {
        options.metrics().pagesSkipped.addAndGet(selection.pagesSkipped());
      }
      if (selection != null && selection.ranges().rowCount() == 0) {
        if (options.metrics() != null) {
          options.metrics().rowGroupsSkipped.incrementAndGet();
        }
        continue;
      }
      PageReadStore pages =
          selection == null
              ? file.readRowGroup(index)
              : file.readFilteredRowGroup(index, selection.ranges());
      if (pages == null) {
        return false;
      }
      if (options.metrics() != null) {
        options.metrics().rowGroupsRead.incrementAndGet();
      }
      AtomicLong pagesRead = options.metrics() == null ? null : options.metrics().pagesRead;
      ColumnReadStoreImpl store = null;
      for (Column column : columns) {
        ColumnChunkMetaData chunk = chunkOf(block, column.descriptor);
        if (pageDecoding && chunk != null && ParquetPageColumn.handles(chunk.getEncodings())) {
          column.start(
              new ParquetPageColumn(
                  column.descriptor,
                  column.type,
                  pages.getPageReader(column.descriptor),
                  pagesRead));
        } else {
          if (store == null) {
            store = new ColumnReadStoreImpl(pages, new Converters(columns), requested, createdBy);
          }
          column.start(store.getColumnReader(column.descriptor));
        }
      }
      if (selection == null) {
        rowsLeftInRun = block.getRowCount();
      } else {
        runs = selection.runs();
        nextRun = 0;
        rowsLeftInRun = 0;
      }
      return true;
    }
    return false;
  }

  /**
   * Whether every requested column chunk of {@code block} is decoded by {@link ParquetPageColumn}:
   * only those follow the rows of a filtered row group read page by page.
   */
  private boolean pageDecodable(BlockMetaData block) {
    if (!pageDecoding) {
      return false;
    }
    for (Column column : columns) {
      ColumnChunkMetaData chunk = chunkOf(block, column.descriptor);
      if (chunk == null || !ParquetPageColumn.handles(chunk.getEncodings())) {
        return false;
      }
    }
    return true;
  }

  /** The requested columns: their descriptors and positions in the row type. */
  private List<PageIndexes.ColumnRef> columns() {
    List<PageIndexes.ColumnRef> refs = new ArrayList<>(columns.length);
    for (Column column : columns) {
      refs.add(new PageIndexes.ColumnRef(column.descriptor, column.position));
    }
    return refs;
  }

  private static ColumnChunkMetaData chunkOf(BlockMetaData block, ColumnDescriptor descriptor) {
    ColumnPath path = ColumnPath.get(descriptor.getPath());
    for (ColumnChunkMetaData chunk : block.getColumns()) {
      if (chunk.getPath().equals(path)) {
        return chunk;
      }
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    file.close();
  }

  /** The root converter {@link ColumnReadStoreImpl} asks for each column's converter. */
  private static final class Converters extends GroupConverter {
    private final Column[] columns;

    Converters(Column[] columns) {
      this.columns = columns;
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return columns[fieldIndex];
    }

    @Override
    public void start() {}

    @Override
    public void end() {}
  }

  /**
   * One requested column: decodes its values into the rows of a batch. Binary columns go through
   * the converter interface, so that a dictionary page is decoded once per row group; the others
   * read the column reader's primitives directly.
   */
  private static final class Column extends PrimitiveConverter {
    final ColumnDescriptor descriptor;
    final DataType type;
    final int position;
    private final int maxDefinition;
    private Object[] discard;
    private final boolean binary;
    private ColumnReader reader;
    private ParquetPageColumn pages;
    private Dictionary dictionary;
    private Object[] decoded;
    private Object[] row;

    Column(ColumnDescriptor descriptor, DataType type, int position) {
      this.descriptor = descriptor;
      this.type = type;
      this.position = position;
      this.maxDefinition = descriptor.getMaxDefinitionLevel();
      this.binary =
          switch (type.root()) {
            case STRING, CHAR, VARCHAR, BYTES -> true;
            case DECIMAL -> type.precision() > 18;
            default -> false;
          };
    }

    void start(ColumnReader reader) {
      this.reader = reader;
      this.pages = null;
    }

    void start(ParquetPageColumn pages) {
      this.pages = pages;
      this.reader = null;
    }

    /**
     * Moves to row {@code row} of the row group: only page-decoded columns move (runs other than a
     * whole row group are made only when every column is page-decoded).
     */
    void seek(long row) throws IOException {
      if (pages != null) {
        pages.seek(row);
      } else if (row != 0) {
        throw new IllegalStateException("Column " + position + " cannot seek to row " + row);
      }
    }

    /** Decodes the next {@code n} values into {@code rows[0..n)} only where {@code selected}. */
    void readSelected(Object[][] rows, boolean[] selected, int n) throws IOException {
      if (pages != null) {
        pages.readSelected(rows, selected, n, position);
        return;
      }
      read(targets(rows, selected, n), n);
    }

    /** Steps over the next {@code n} values. */
    void skip(int n) throws IOException {
      if (pages != null) {
        pages.skip(n);
        return;
      }
      read(targets(null, null, n), n);
    }

    /** Rows to decode into: the kept rows in order, a discarded array for the others. */
    private Object[][] targets(Object[][] rows, boolean[] selected, int n) {
      if (discard == null) {
        discard = new Object[position + 1];
      }
      Object[][] targets = new Object[n][];
      int j = 0;
      for (int r = 0; r < n; r++) {
        targets[r] = selected != null && selected[r] ? rows[j++] : discard;
      }
      return targets;
    }

    void read(Object[][] rows, int n) throws IOException {
      if (pages != null) {
        pages.read(rows, n, position);
        return;
      }
      ColumnReader in = reader;
      int pos = position;
      int max = maxDefinition;
      switch (type.root()) {
        case INT -> {
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = in.getInteger();
            }
            in.consume();
          }
        }
        case BIGINT -> {
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = in.getLong();
            }
            in.consume();
          }
        }
        case TINYINT -> {
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = (byte) in.getInteger();
            }
            in.consume();
          }
        }
        case SMALLINT -> {
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = (short) in.getInteger();
            }
            in.consume();
          }
        }
        case FLOAT -> {
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = in.getFloat();
            }
            in.consume();
          }
        }
        case TIMESTAMP_LTZ -> {
          int precision = type.precision();
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = InstantUnits.fromLong(in.getLong(), precision);
            }
            in.consume();
          }
        }
        case DOUBLE -> {
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = in.getDouble();
            }
            in.consume();
          }
        }
        case BOOLEAN -> {
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = in.getBoolean();
            }
            in.consume();
          }
        }
        case DATE -> {
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = LocalDate.ofEpochDay(in.getInteger());
            }
            in.consume();
          }
        }
        case TIMESTAMP -> {
          for (int r = 0; r < n; r++) {
            if (in.getCurrentDefinitionLevel() == max) {
              rows[r][pos] = timestamp(in.getLong());
            }
            in.consume();
          }
        }
        case DECIMAL -> {
          int scale = type.scale();
          if (type.precision() <= 9) {
            for (int r = 0; r < n; r++) {
              if (in.getCurrentDefinitionLevel() == max) {
                rows[r][pos] = BigDecimal.valueOf(in.getInteger(), scale);
              }
              in.consume();
            }
          } else if (type.precision() <= 18) {
            for (int r = 0; r < n; r++) {
              if (in.getCurrentDefinitionLevel() == max) {
                rows[r][pos] = BigDecimal.valueOf(in.getLong(), scale);
              }
              in.consume();
            }
          } else {
            readThroughConverter(rows, n);
          }
        }
        case STRING, CHAR, VARCHAR, BYTES -> readThroughConverter(rows, n);
        default -> throw new IllegalArgumentException("Unsupported type " + type);
      }
    }

    private void readThroughConverter(Object[][] rows, int n) {
      ColumnReader in = reader;
      int max = maxDefinition;
      for (int r = 0; r < n; r++) {
        if (in.getCurrentDefinitionLevel() == max) {
          row = rows[r];
          in.writeCurrentValueToConverter();
        }
        in.consume();
      }
      row = null;
    }

    /** Micros since the epoch as a wall-clock time (no time zone), as the writer stored it. */
    private static LocalDateTime timestamp(long micros) {
      long seconds = Math.floorDiv(micros, MICROS_PER_SECOND);
      int nanos = (int) Math.floorMod(micros, MICROS_PER_SECOND) * 1_000;
      return LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
    }

    private Object valueOf(Binary value) {
      switch (type.root()) {
        case STRING:
        case CHAR:
        case VARCHAR:
          return value.toStringUsingUTF8();
        case BYTES:
          // A copy: the reader may hand out a view of its page buffer.
          return value.getBytes().clone();
        default:
          return new BigDecimal(new BigInteger(value.getBytes()), type.scale());
      }
    }

    @Override
    public void addBinary(Binary value) {
      row[position] = valueOf(value);
    }

    @Override
    public boolean hasDictionarySupport() {
      return binary;
    }

    @Override
    public void setDictionary(Dictionary dictionary) {
      this.dictionary = dictionary;
      this.decoded = new Object[dictionary.getMaxId() + 1];
    }

    @Override
    public void addValueFromDictionary(int dictionaryId) {
      Object value = decoded[dictionaryId];
      if (value == null) {
        value = valueOf(dictionary.decodeToBinary(dictionaryId));
        if (type.root() != dev.lockstep.engine.types.DataTypeRoot.BYTES) {
          // Strings and decimals are immutable: one object per dictionary entry.
          decoded[dictionaryId] = value;
        }
        row[position] = value;
        return;
      }
      row[position] = value;
    }
  }
}
