package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Apache Parquet data files, through Parquet's {@link InputFile} / {@link OutputFile} over
 * Lockstep's {@link FileIO}: no Hadoop file system is involved on any store. parquet-hadoop still
 * builds its writer, reader and codecs on Hadoop's {@code Configuration} and compression
 * interfaces; this class hands it an empty {@code Configuration} that loads no resource file.
 *
 * <p>Rows are written value by value into parquet-mr's column writers through {@link
 * ParquetRowWriter} (the type mapping is {@link ParquetRows}'), whose footer statistics are the
 * file's statistics, and read column by column through {@link ParquetColumnarReader}. Reading
 * streams one row group at a time: the whole file is never in memory.
 */
public final class ParquetFileFormat implements FileFormat {

  private final CompressionCodecName codec;
  private final long blockSize;
  private final int pageSize;

  /** Columns written without dictionary encoding (plain): their values (nearly) never repeat. */
  private final Set<String> plainColumns;

  /**
   * Columns whose dictionary did not pay in a recently finished file of this format (a table's):
   * the number of next files that write them plain. parquet-mr tries a dictionary for each column
   * chunk, hashes the first page's values into it and, when it does not shrink the page (the values
   * hardly repeat), re-encodes the page plain: for a column of (nearly) unique values, every small
   * file pays both. A file's encodings are its own business (readers read both), so after a file
   * whose chunk of a column fell back to plain, the next {@link #LEARNED_PLAIN_FILES} files write
   * that column plain, and the one after tries the dictionary again.
   */
  private final ConcurrentHashMap<String, AtomicInteger> learnedPlain = new ConcurrentHashMap<>();

  /** Files written plain after a column's dictionary fell back (then the dictionary is retried). */
  static final int LEARNED_PLAIN_FILES = 32;

  /**
   * Values a column chunk needs for its fallback to teach anything: a tiny file's dictionary never
   * pays, whatever its column holds.
   */
  static final long LEARN_MIN_VALUES = 10_000;

  /**
   * @param compression {@code zstd}, {@code lz4} (Parquet's {@code LZ4_RAW}), {@code snappy},
   *     {@code deflate} (Parquet's {@code GZIP}), {@code none} or {@code null}
   * @param blockSize the row group size in bytes ({@code parquet.block.size})
   * @param pageSize the page size in bytes ({@code parquet.page.size})
   */
  public ParquetFileFormat(String compression, long blockSize, int pageSize) {
    this(compression, blockSize, pageSize, Set.of());
  }

  /**
   * The zstd level of new files: 1, Paimon's default {@code file.compression.zstd-level}
   * (parquet-hadoop's own default is 3, which costs about twice the CPU per byte for files a few
   * percent smaller). Not a table option: parquet-hadoop keeps one zstd codec per JVM (its {@code
   * CodecFactory} caches codecs by class, with the configuration of the first use), so the level is
   * one for the whole engine; {@link ZstdLevel} makes this engine's configuration that first use.
   */
  public static final int ZSTD_LEVEL = 1;

  /** parquet-hadoop's key for the zstd level. */
  static final String ZSTD_LEVEL_KEY = "parquet.compression.codec.zstd.level";

  /**
   * @param plainColumns columns whose values (nearly) never repeat within a file, written plain
   *     without trying a dictionary first: parquet-mr would fill a dictionary for each page and
   *     then re-encode the page plain when the dictionary does not pay (the primary key of a
   *     single-column key in a primary-key table's files, where every key is once per file, and the
   *     sequence number); every other column keeps Parquet's dictionary encoding
   */
  public ParquetFileFormat(
      String compression, long blockSize, int pageSize, Set<String> plainColumns) {
    this.codec = codecOf(compression);
    this.blockSize = blockSize;
    this.pageSize = pageSize;
    this.plainColumns = Set.copyOf(plainColumns);
  }

  static CompressionCodecName codecOf(String compression) {
    switch (compression.toLowerCase(Locale.ROOT)) {
      case "zstd":
        return CompressionCodecName.ZSTD;
      case "lz4":
        return CompressionCodecName.LZ4_RAW;
      case "snappy":
        return CompressionCodecName.SNAPPY;
      case "deflate":
        return CompressionCodecName.GZIP;
      case "none":
      case "null":
        return CompressionCodecName.UNCOMPRESSED;
      default:
        throw new IllegalArgumentException(
            "Compression '"
                + compression
                + "' is not one of"
                + " Parquet's: use zstd, lz4, snappy, deflate or none.");
    }
  }

  @Override
  public String extension() {
    return "parquet";
  }

  /**
   * Parquet's reader and writer need Hadoop's client classes (not its file systems); an engine
   * class path without them gets this one line instead of a {@code NoClassDefFoundError}.
   */
  private static void requireHadoop() throws IOException {
    try {
      Class.forName(
          "org.apache.hadoop.conf.Configuration", false, ParquetFileFormat.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IOException(
          "Parquet data files need Hadoop's client classes on the class path"
              + " (hadoop-client-api and hadoop-client-runtime, or the engine's Hadoop); add them, or"
              + " write Avro files with 'file.format' = 'avro'.",
          e);
    }
  }

  /**
   * Starts a file, writing each row's values straight into parquet-mr's column writers ({@link
   * ParquetRowWriter}); the file statistics come from its footer ({@link FormatWriter#stats}).
   */
  @Override
  public FormatWriter createWriter(FileIO fileIO, Path path, RowType rowType) throws IOException {
    requireHadoop();
    Configuration conf = new Configuration(false);
    conf.setInt(ZSTD_LEVEL_KEY, ZSTD_LEVEL);
    Set<String> dictionary = new HashSet<>();
    Set<String> plain = new HashSet<>();
    for (String column : rowType.names()) {
      if (plainColumns.contains(column) || plainThisFile(column)) {
        plain.add(column);
      } else {
        dictionary.add(column);
      }
    }
    ParquetRowWriter writer =
        new ParquetRowWriter(
            new FileOutput(fileIO, path), rowType, pageSize, plain, codec, conf, blockSize);
    return new FormatWriter() {
      private boolean closed;

      @Override
      public void write(GenericRow row) throws IOException {
        writer.write(row);
      }

      @Override
      public long length() {
        return writer.length();
      }

      @Override
      public void close() throws IOException {
        if (!closed) {
          closed = true;
          writer.close();
          learn(writer.footer(), dictionary);
        }
      }

      @Override
      public boolean keepsStats() {
        return true;
      }

      @Override
      public FieldStats[] stats(int columns) {
        return writer.stats(columns);
      }
    };
  }

  /** Whether a new file writes {@code column} plain because its dictionary fell back recently. */
  private boolean plainThisFile(String column) {
    AtomicInteger left = learnedPlain.get(column);
    if (left == null) {
      return false;
    }
    if (left.decrementAndGet() >= 0) {
      return true;
    }
    learnedPlain.remove(column, left);
    return false;
  }

  /**
   * Notes the columns of a finished file that could have used a dictionary and wrote no dictionary
   * page in a chunk of at least {@link #LEARN_MIN_VALUES} values: parquet-mr fell back to plain
   * there, or the file's first rows showed the values hardly repeat ({@link ParquetRowWriter}). The
   * next files then write them plain without sampling.
   */
  private void learn(ParquetMetadata footer, Set<String> dictionary) {
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        String[] path = chunk.getPath().toArray();
        if (path.length == 1
            && dictionary.contains(path[0])
            && chunk.getValueCount() >= LEARN_MIN_VALUES
            && chunk.getPrimitiveType().getPrimitiveTypeName()
                != PrimitiveType.PrimitiveTypeName.BOOLEAN
            && !chunk.hasDictionaryPage()) {
          learnedPlain.put(path[0], new AtomicInteger(LEARNED_PLAIN_FILES));
        }
      }
    }
  }

  /** The columns that new files write plain for now, having learnt it (for tests). */
  Set<String> learnedPlainColumns() {
    Set<String> columns = new HashSet<>();
    learnedPlain.forEach(
        (column, left) -> {
          if (left.get() > 0) {
            columns.add(column);
          }
        });
    return columns;
  }

  @Override
  public FormatReader createReader(FileIO fileIO, Path path, RowType rowType) throws IOException {
    return createReader(fileIO, path, rowType, ReadOptions.ALL);
  }

  /**
   * Opens a file, reading only the columns {@code options} ask for (Parquet's requested schema: the
   * other column chunks are never fetched) and skipping the row groups whose footer statistics show
   * that no row makes {@code options.skipFilter()} TRUE.
   */
  @Override
  public FormatReader createReader(FileIO fileIO, Path path, RowType rowType, ReadOptions options)
      throws IOException {
    return createReader(fileIO, path, rowType, options, true);
  }

  /**
   * Opens a file as {@link #createReader(FileIO, Path, RowType, ReadOptions)} does, decoding column
   * by column ({@link ParquetColumnarReader}, the engine's read path) or, with {@code columnar}
   * false, through parquet-mr's record assembly (the earlier path, kept so that tests compare the
   * two on the same files).
   */
  FormatReader createReader(
      FileIO fileIO, Path path, RowType rowType, ReadOptions options, boolean columnar)
      throws IOException {
    return createReader(fileIO, path, rowType, options, columnar, true);
  }

  /** As above; {@code pageDecoding} false decodes every column through {@code ColumnReader}. */
  FormatReader createReader(
      FileIO fileIO,
      Path path,
      RowType rowType,
      ReadOptions options,
      boolean columnar,
      boolean pageDecoding)
      throws IOException {
    requireHadoop();
    ParquetFileReader file =
        ParquetFileReader.open(
            new FileInput(fileIO, path),
            HadoopReadOptions.builder(new Configuration(false)).build());
    try {
      MessageType schema = file.getFooter().getFileMetaData().getSchema();
      ParquetRows.checkReadable(schema, rowType, path);
      int[] positions = ParquetRows.positions(rowType, options.columns());
      MessageType requested = ParquetRows.requested(schema, positions);
      file.setRequestedSchema(requested);
      if (columnar) {
        return new ParquetColumnarReader(
            file, requested, rowType, positions, options, pageDecoding);
      }
      return new RowGroupReader(
          file,
          new ColumnIOFactory().getColumnIO(requested, schema),
          new ParquetRows.Materializer(rowType, positions),
          rowType,
          options);
    } catch (IOException | RuntimeException e) {
      file.close();
      throw e;
    }
  }

  /**
   * Reads the rows of one row group after the other through parquet-mr's record assembly; holds one
   * row group's pages at a time.
   */
  private static final class RowGroupReader implements FormatReader {
    private final ParquetFileReader file;
    private final MessageColumnIO columnIO;
    private final ParquetRows.Materializer materializer;
    private final RowType rowType;
    private final ReadOptions options;
    private final List<BlockMetaData> blocks;
    private int nextBlock;
    private RecordReader<GenericRow> records;
    private long rowsLeft;

    /** The file position of the next row (skipped row groups counted), for the deleted rows. */
    private long position;

    RowGroupReader(
        ParquetFileReader file,
        MessageColumnIO columnIO,
        ParquetRows.Materializer materializer,
        RowType rowType,
        ReadOptions options) {
      this.file = file;
      this.columnIO = columnIO;
      this.materializer = materializer;
      this.rowType = rowType;
      this.options = options;
      this.blocks = file.getRowGroups();
    }

    @Override
    public GenericRow next() throws IOException {
      while (true) {
        GenericRow row = nextRow();
        long at = position++;
        if (row == null || options.deleted() == null || !options.deleted().contains((int) at)) {
          return row;
        }
      }
    }

    private GenericRow nextRow() throws IOException {
      while (rowsLeft == 0) {
        if (nextBlock >= blocks.size()) {
          return null;
        }
        BlockMetaData block = blocks.get(nextBlock++);
        if (options.skipFilter() != null
            && !options.skipFilter().mightMatch(ParquetRows.statsOf(block, rowType))) {
          position += block.getRowCount();
          file.skipNextRowGroup();
          if (options.metrics() != null) {
            options.metrics().rowGroupsSkipped.incrementAndGet();
          }
          continue;
        }
        PageReadStore pages = file.readNextRowGroup();
        if (pages == null) {
          return null;
        }
        if (options.metrics() != null) {
          options.metrics().rowGroupsRead.incrementAndGet();
        }
        rowsLeft = pages.getRowCount();
        records = columnIO.getRecordReader(pages, materializer);
      }
      rowsLeft--;
      return records.read();
    }

    @Override
    public void close() throws IOException {
      file.close();
    }
  }

  /**
   * Creates parquet-hadoop's JVM-wide zstd codec with {@link #ZSTD_LEVEL} before any reader or
   * writer does (a reader's configuration carries no level, and the codec it caches would compress
   * at parquet-hadoop's default). Without Hadoop's or zstd-jni's classes it does nothing: the first
   * Parquet read or write names what is missing.
   */
  private static final class ZstdLevel {
    static {
      try {
        Configuration conf = new Configuration(false);
        conf.setInt(ZSTD_LEVEL_KEY, ZSTD_LEVEL);
        new org.apache.parquet.hadoop.CodecFactory(conf, 64 * 1024)
            .getCompressor(CompressionCodecName.ZSTD)
            .release();
      } catch (RuntimeException | LinkageError e) {
        // No Hadoop or no zstd-jni on the class path: reported where a file is read or written.
      }
    }

    static void prime() {
      // Runs the static initializer once.
    }
  }

  /** Bytes gathered before a new file's stream is written to (see {@code FileOutput}). */
  static final int OUTPUT_BUFFER_BYTES = 64 * 1024;

  /** A new file of a {@link FileIO} as Parquet's {@link OutputFile}. */
  static final class FileOutput implements OutputFile {
    private final FileIO fileIO;
    private final Path path;

    FileOutput(FileIO fileIO, Path path) {
      this.fileIO = fileIO;
      this.path = path;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
      return new CountingOutput(buffered(fileIO.newOutputStream(path, false)));
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
      return new CountingOutput(buffered(fileIO.newOutputStream(path, true)));
    }

    /**
     * parquet-mr writes each page header, column index and the footer through Thrift, a few bytes
     * per call; a {@link FileIO}'s stream need not buffer (the local one writes each call to its
     * channel), so those small writes are gathered here. Pages, larger than the buffer, go through.
     */
    private static OutputStream buffered(OutputStream out) {
      return new java.io.BufferedOutputStream(out, OUTPUT_BUFFER_BYTES);
    }

    @Override
    public boolean supportsBlockSize() {
      return false;
    }

    @Override
    public long defaultBlockSize() {
      return 0;
    }

    @Override
    public String getPath() {
      return path.toString();
    }
  }

  private static final class CountingOutput extends PositionOutputStream {
    private final OutputStream out;
    private long position;

    CountingOutput(OutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() {
      return position;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      position++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      position += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  /**
   * A file of a {@link FileIO} as Parquet's {@link InputFile}, read through its seekable stream.
   */
  static final class FileInput implements InputFile {
    private final FileIO fileIO;
    private final Path path;

    FileInput(FileIO fileIO, Path path) {
      this.fileIO = fileIO;
      this.path = path;
    }

    @Override
    public long getLength() throws IOException {
      return fileIO.getStatus(path).length();
    }

    @Override
    public SeekableInputStream newStream() throws IOException {
      dev.lockstep.fs.SeekableInputStream in = fileIO.newInputStream(path);
      return new DelegatingSeekableInputStream(in) {
        @Override
        public long getPos() throws IOException {
          return in.position();
        }

        @Override
        public void seek(long position) throws IOException {
          in.seek(position);
        }
      };
    }

    @Override
    public String toString() {
      return path.toString();
    }
  }
}
