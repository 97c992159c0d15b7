package dev.lockstep.engine.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.engine.types.TextCast;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every column type through every codec of both data-file formats: random rows (nulls, extremes,
 * repeated values for dictionary pages) are read back equal, across many Parquet row groups.
 */
class FileFormatRoundTripTest {

  @TempDir java.nio.file.Path dir;

  private final LocalFileIO io = new LocalFileIO();

  /**
   * Every type, nullable and NOT NULL, each DECIMAL storage width of Parquet, each storage unit of
   * TIMESTAMP_LTZ (milliseconds for precision ≤ 3, microseconds above).
   */
  static final RowType ALL_TYPES =
      new RowType(
          List.of(
              new DataField(0, "i", DataType.intType().notNull()),
              new DataField(1, "b", DataType.bigint()),
              new DataField(2, "d", DataType.doubleType()),
              new DataField(3, "flag", DataType.booleanType()),
              new DataField(4, "s", DataType.string()),
              new DataField(5, "raw", DataType.bytes()),
              new DataField(6, "dec9", DataType.decimal(9, 2)),
              new DataField(7, "dec18", DataType.decimal(18, 6)),
              new DataField(8, "dec38", DataType.decimal(38, 10)),
              new DataField(9, "dec20", DataType.decimal(20, 0).notNull()),
              new DataField(10, "day", DataType.date()),
              new DataField(11, "ts", DataType.timestamp()),
              new DataField(12, "odd name/with=chars", DataType.string().notNull()),
              new DataField(Integer.MAX_VALUE, "_SEQUENCE", DataType.bigint().notNull()),
              new DataField(14, "tiny", DataType.tinyint()),
              new DataField(15, "small", DataType.smallint().notNull()),
              new DataField(16, "f", DataType.floatType()),
              new DataField(17, "c", DataType.charType(5)),
              new DataField(18, "vc", DataType.varchar(10)),
              new DataField(19, "ltz3", DataType.timestampLtz(3)),
              new DataField(20, "ltz6", DataType.timestampLtz(6)),
              new DataField(21, "ltz0", DataType.timestampLtz(0).notNull())));

  static Stream<Arguments> formats() {
    List<Arguments> cases = new ArrayList<>();
    for (String codec : List.of("zstd", "lz4", "snappy", "deflate", "none", "null")) {
      cases.add(Arguments.of("parquet", codec));
    }
    for (String codec : List.of("zstd", "snappy", "deflate", "none", "null")) {
      cases.add(Arguments.of("avro", codec));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("formats")
  void everyTypeRoundTrips(String format, String codec) throws IOException {
    List<GenericRow> rows = rows(3000, 42);
    DataFileFormat files = new DataFileFormat(format, codec, 4096, 1024);
    Path file = Path.of(dir.toString()).child("data." + files.extension());
    long lengthBefore;
    try (FormatWriter writer = files.createWriter(io, file, ALL_TYPES)) {
      for (int i = 0; i < rows.size() / 2; i++) {
        writer.write(rows.get(i));
      }
      lengthBefore = writer.length();
      for (int i = rows.size() / 2; i < rows.size(); i++) {
        writer.write(rows.get(i));
      }
      assertThat(writer.length())
          .as("length() grows as rows are written")
          .isGreaterThan(lengthBefore);
    }
    assertThat(file.name()).endsWith("." + format);
    // A table of the other format reads the file too: reads go by the extension.
    String other = format.equals("parquet") ? "avro" : "parquet";
    assertThat(readAll(new DataFileFormat(other, "none", 1 << 20, 1 << 16), file)).isEqualTo(rows);
  }

  @Test
  void parquetFilesAreStandardParquetWithRowGroupsOfTheBlockSize() throws IOException {
    List<GenericRow> rows = rows(5000, 7);
    Path file = Path.of(dir.toString()).child("data.parquet");
    try (FormatWriter writer =
        new ParquetFileFormat("zstd", 8 * 1024, 1024).createWriter(io, file, ALL_TYPES)) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
    ParquetMetadata footer;
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new ParquetFileFormat.FileInput(io, file),
            HadoopReadOptions.builder(new Configuration(false)).build())) {
      footer = reader.getFooter();
    }
    assertThat(footer.getBlocks())
        .as("row groups of about parquet.block.size")
        .hasSizeGreaterThan(3);
    long total = 0;
    for (BlockMetaData block : footer.getBlocks()) {
      total += block.getRowCount();
      assertThat(block.getColumns().get(0).getCodec()).isEqualTo(CompressionCodecName.ZSTD);
    }
    assertThat(total).isEqualTo(rows.size());
    MessageType schema = footer.getFileMetaData().getSchema();
    assertThat(schema.getType(12).getName()).isEqualTo("odd name/with=chars");
    assertThat(schema.getType(13).getId().intValue()).isEqualTo(Integer.MAX_VALUE);
    assertThat(schema.getType(6).asPrimitiveType().getPrimitiveTypeName())
        .isEqualTo(PrimitiveTypeName.INT32);
    assertThat(schema.getType(7).asPrimitiveType().getPrimitiveTypeName())
        .isEqualTo(PrimitiveTypeName.INT64);
    assertThat(schema.getType(8).asPrimitiveType().getTypeLength()).isEqualTo(16);
    assertThat(schema.getType(8).getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.decimalType(10, 38));
    assertThat(schema.getType(11).getLogicalTypeAnnotation())
        .isEqualTo(
            LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MICROS));
    assertThat(schema.getType(0).isRepetition(org.apache.parquet.schema.Type.Repetition.REQUIRED))
        .isTrue();
    assertThat(schema.getType(1).isRepetition(org.apache.parquet.schema.Type.Repetition.OPTIONAL))
        .isTrue();
  }

  /**
   * The columnar read path (pages decoded by the engine, and each column through parquet-column's
   * {@code ColumnReader}) returns, for any set of requested columns, what parquet-mr's record
   * assembly returns, and the written rows with the columns not read as NULL: with small row groups
   * (many of them, each below one batch) and with large ones (batches that end inside a row group
   * and inside a page, dictionary and plain pages of the same column).
   */
  @ParameterizedTest(name = "block size {0}")
  @org.junit.jupiter.params.provider.ValueSource(ints = {16 * 1024, 4 * 1024 * 1024})
  void theColumnarReaderReadsWhatTheRecordReaderReadsForEveryProjection(int blockSize)
      throws IOException {
    List<GenericRow> rows = rows(5000, 11);
    ParquetFileFormat parquet = new ParquetFileFormat("zstd", blockSize, 1024);
    Path file = Path.of(dir.toString()).child("data.parquet");
    try (FormatWriter writer = parquet.createWriter(io, file, ALL_TYPES)) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new ParquetFileFormat.FileInput(io, file),
            HadoopReadOptions.builder(new Configuration(false)).build())) {
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        for (var chunk : block.getColumns()) {
          assertThat(ParquetPageColumn.handles(chunk.getEncodings()))
              .as("the engine decodes the pages of %s (%s)", chunk.getPath(), chunk.getEncodings())
              .isTrue();
        }
      }
    }
    Random random = new Random(blockSize);
    for (int round = 0; round < 12; round++) {
      boolean[] columns = null;
      if (round > 0) {
        columns = new boolean[ALL_TYPES.size()];
        for (int i = 0; i < columns.length; i++) {
          columns[i] = random.nextInt(3) == 0;
        }
      }
      ReadOptions options = new ReadOptions(columns, null, null);
      List<GenericRow> columnar = read(parquet.createReader(io, file, ALL_TYPES, options, true));
      List<GenericRow> record = read(parquet.createReader(io, file, ALL_TYPES, options, false));
      List<GenericRow> columnReaders =
          read(parquet.createReader(io, file, ALL_TYPES, options, true, false));
      assertThat(columnar).as("round " + round).isEqualTo(record);
      assertThat(columnReaders).as("round " + round).isEqualTo(record);
      List<GenericRow> expected = new ArrayList<>();
      for (GenericRow row : rows) {
        Object[] v = new Object[row.size()];
        for (int i = 0; i < v.length; i++) {
          v[i] = options.reads(i) ? row.get(i) : null;
        }
        expected.add(GenericRow.wrap(v));
      }
      assertThat(columnar).as("round " + round).isEqualTo(expected);
    }
  }

  /**
   * Files of other writer settings read the same on every path: Parquet v2 pages (dictionary pages
   * with {@code RLE_DICTIONARY} ids, or DELTA encodings without a dictionary) and v1 pages without
   * a dictionary. The engine's page decoder takes the chunks whose encodings it knows (v2 pages
   * included), parquet-column's {@code ColumnReader} the others.
   */
  @ParameterizedTest(name = "{0}, dictionary {1}")
  @org.junit.jupiter.params.provider.CsvSource({
    "PARQUET_2_0, true",
    "PARQUET_2_0, false",
    "PARQUET_1_0, false"
  })
  void filesOfOtherWriterSettingsReadTheSameOnEveryPath(String version, boolean dictionary)
      throws IOException {
    RowType type =
        new RowType(
            List.of(
                new DataField(0, "i", DataType.intType().notNull()),
                new DataField(1, "b", DataType.bigint()),
                new DataField(2, "s", DataType.string()),
                new DataField(3, "d", DataType.doubleType()),
                new DataField(4, "flag", DataType.booleanType()),
                new DataField(5, "day", DataType.date())));
    MessageType schema = ParquetRows.schemaOf(type);
    Path file = Path.of(dir.toString()).child("other.parquet");
    Random random = new Random(3);
    String[] words = {"a", "héllo", "日本語", ""};
    List<GenericRow> rows = new ArrayList<>();
    org.apache.parquet.example.data.simple.SimpleGroupFactory groups =
        new org.apache.parquet.example.data.simple.SimpleGroupFactory(schema);
    try (org.apache.parquet.hadoop.ParquetWriter<org.apache.parquet.example.data.Group> writer =
        org.apache.parquet.hadoop.example.ExampleParquetWriter.builder(
                new ParquetFileFormat.FileOutput(io, file))
            .withType(schema)
            .withConf(new Configuration(false))
            .withWriterVersion(
                org.apache.parquet.column.ParquetProperties.WriterVersion.valueOf(version))
            .withDictionaryEncoding(dictionary)
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .withPageSize(1024)
            .withRowGroupSize(32 * 1024)
            .build()) {
      for (int n = 0; n < 4000; n++) {
        Object[] v = {
          random.nextInt(),
          random.nextInt(5) == 0 ? null : (long) (n % 37),
          random.nextInt(5) == 0 ? null : words[random.nextInt(words.length)],
          random.nextInt(5) == 0 ? null : random.nextGaussian(),
          random.nextInt(5) == 0 ? null : random.nextBoolean(),
          random.nextInt(5) == 0 ? null : LocalDate.ofEpochDay(random.nextInt(40_000) - 20_000)
        };
        org.apache.parquet.example.data.Group g = groups.newGroup();
        g.append("i", (Integer) v[0]);
        if (v[1] != null) {
          g.append("b", (Long) v[1]);
        }
        if (v[2] != null) {
          g.append("s", (String) v[2]);
        }
        if (v[3] != null) {
          g.append("d", (Double) v[3]);
        }
        if (v[4] != null) {
          g.append("flag", (Boolean) v[4]);
        }
        if (v[5] != null) {
          g.append("day", (int) ((LocalDate) v[5]).toEpochDay());
        }
        writer.write(g);
        rows.add(GenericRow.wrap(v));
      }
    }
    boolean pageDecoded = false;
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new ParquetFileFormat.FileInput(io, file),
            HadoopReadOptions.builder(new Configuration(false)).build())) {
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        for (var chunk : block.getColumns()) {
          pageDecoded |= ParquetPageColumn.handles(chunk.getEncodings());
        }
      }
    }
    assertThat(pageDecoded).as("some chunk goes through the engine's page decoder").isTrue();
    ParquetFileFormat parquet = new ParquetFileFormat("none", 1 << 20, 1 << 16);
    assertThat(read(parquet.createReader(io, file, type, ReadOptions.ALL, true))).isEqualTo(rows);
    assertThat(read(parquet.createReader(io, file, type, ReadOptions.ALL, true, false)))
        .isEqualTo(rows);
    assertThat(read(parquet.createReader(io, file, type, ReadOptions.ALL, false))).isEqualTo(rows);
  }

  private static List<GenericRow> read(FormatReader reader) throws IOException {
    List<GenericRow> read = new ArrayList<>();
    try (reader) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        read.add(r);
      }
      assertThat(reader.next()).as("the end stays the end").isNull();
    }
    return read;
  }

  @Test
  void decimalWidthsHoldEveryPrecision() {
    for (int precision = 1; precision <= DataType.MAX_DECIMAL_PRECISION; precision++) {
      BigInteger max = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
      int bytes = ParquetRows.decimalBytes(precision);
      assertThat(max.bitLength() + 1).as("precision " + precision).isLessThanOrEqualTo(bytes * 8);
      assertThat(max.bitLength() + 1).as("precision " + precision).isGreaterThan(bytes * 8 - 8);
    }
  }

  @Test
  void aNullInANotNullColumnIsRefusedNamingTheColumn() throws IOException {
    Path file = Path.of(dir.toString()).child("bad.parquet");
    try (FormatWriter writer =
        new ParquetFileFormat("zstd", 1 << 20, 1 << 16).createWriter(io, file, ALL_TYPES)) {
      GenericRow good = rows(1, 1).get(0);
      writer.write(good);
      assertThatThrownBy(() -> writer.write(good.with(0, null)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Column 'i'");
    }
  }

  @Test
  void aFileOfAnotherRowTypeIsRefusedNamingTheColumn() throws IOException {
    Path file = Path.of(dir.toString()).child("other.parquet");
    RowType strings =
        new RowType(
            List.of(
                new DataField(0, "x", DataType.string()),
                new DataField(1, "y", DataType.string())));
    try (FormatWriter writer =
        new ParquetFileFormat("none", 1 << 20, 1 << 16).createWriter(io, file, strings)) {
      writer.write(GenericRow.of("a", "b"));
    }
    RowType ints =
        new RowType(
            List.of(
                new DataField(0, "x", DataType.string()),
                new DataField(1, "y", DataType.intType())));
    assertThatThrownBy(
            () -> new ParquetFileFormat("none", 1 << 20, 1 << 16).createReader(io, file, ints))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("column 1")
        .hasMessageContaining("'y'");
  }

  @Test
  void unknownFormatsAndCodecsAreRefusedNamingTheChoices() {
    assertThatThrownBy(() -> new DataFileFormat("orc", "zstd", 1 << 20, 1 << 16))
        .hasMessageContaining("'parquet' or 'avro'");
    assertThatThrownBy(() -> new DataFileFormat("avro", "lz4", 1 << 20, 1 << 16))
        .hasMessageContaining("lz4 is for Parquet files only");
    assertThatThrownBy(() -> new DataFileFormat("parquet", "brotli", 1 << 20, 1 << 16))
        .hasMessageContaining("zstd, lz4, snappy, deflate or none");
    Path file = Path.of(dir.toString()).child("data.orc");
    assertThatThrownBy(
            () ->
                new DataFileFormat("parquet", "zstd", 1 << 20, 1 << 16)
                    .createReader(io, file, ALL_TYPES))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("neither .parquet nor .avro");
  }

  private List<GenericRow> readAll(FileFormat format, Path file) throws IOException {
    List<GenericRow> read = new ArrayList<>();
    try (FormatReader reader = format.createReader(io, file, ALL_TYPES)) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        read.add(r);
      }
      assertThat(reader.next()).as("the end stays the end").isNull();
    }
    return read;
  }

  /** FLOAT's edges: NaN, both zeros, infinities, the extremes. */
  private static final Float[] FLOATS = {
    Float.NaN,
    -0.0f,
    0.0f,
    Float.NEGATIVE_INFINITY,
    Float.POSITIVE_INFINITY,
    Float.MAX_VALUE,
    -Float.MAX_VALUE,
    Float.MIN_VALUE,
    -Float.MIN_VALUE
  };

  /** TIMESTAMP_LTZ(6)'s edges: before 1970, the first and last instants of years 1 and 9999. */
  private static final Instant[] INSTANTS = {
    Instant.parse("0001-01-01T00:00:00Z"),
    Instant.parse("9999-12-31T23:59:59.999999Z"),
    Instant.parse("1969-12-31T23:59:59.999999Z"),
    Instant.EPOCH
  };

  /** Random rows of {@link #ALL_TYPES}: about a fifth of each nullable column null. */
  static List<GenericRow> rows(int count, long seed) {
    Random random = new Random(seed);
    List<GenericRow> rows = new ArrayList<>(count);
    String[] words = {"", "a", "héllo", "日本語", "x".repeat(300), "\uD83D\uDE00ab\uD83D\uDE00cdef"};
    for (int n = 0; n < count; n++) {
      Object[] v = new Object[ALL_TYPES.size()];
      v[0] = n % 7 == 0 ? (n % 2 == 0 ? Integer.MIN_VALUE : Integer.MAX_VALUE) : random.nextInt();
      v[1] = n % 11 == 0 ? Long.MIN_VALUE : random.nextLong();
      v[2] = n % 13 == 0 ? Double.NaN : random.nextGaussian() * 1e6;
      v[3] = random.nextBoolean();
      v[4] =
          random.nextInt(4) == 0
              ? words[random.nextInt(words.length)]
              : Long.toString(random.nextLong(), 36);
      byte[] raw = new byte[random.nextInt(20)];
      random.nextBytes(raw);
      v[5] = n % 3 == 0 ? new byte[] {1, 2, 3} : raw;
      v[6] =
          BigDecimal.valueOf(random.nextInt(2_000_000_000) - 1_000_000_000L, 2)
              .remainder(new BigDecimal("10000000"))
              .setScale(2);
      v[7] =
          n % 5 == 0
              ? new BigDecimal("-999999999999.999999")
              : BigDecimal.valueOf(random.nextLong() % 1_000_000_000_000_000_000L, 6);
      v[8] =
          n % 5 == 0
              ? new BigDecimal("-" + "9".repeat(28) + "." + "9".repeat(10))
              : new BigDecimal(
                  new BigInteger(120, random).subtract(BigInteger.ONE.shiftLeft(119)), 10);
      v[9] =
          new BigDecimal(
              new BigInteger(64, random)
                  .multiply(BigInteger.valueOf(random.nextBoolean() ? 1 : -1)));
      v[10] = LocalDate.ofEpochDay(random.nextInt(200_000) - 100_000);
      v[11] =
          LocalDateTime.of(1900, 1, 1, 0, 0)
              .plusSeconds(random.nextInt(Integer.MAX_VALUE) * 3L)
              .plusNanos(random.nextInt(1_000_000) * 1000L);
      v[12] = words[n % words.length];
      v[13] = (long) n;
      v[14] = n % 7 == 0 ? (n % 2 == 0 ? Byte.MIN_VALUE : Byte.MAX_VALUE) : (byte) random.nextInt();
      v[15] =
          n % 7 == 0 ? (n % 2 == 0 ? Short.MIN_VALUE : Short.MAX_VALUE) : (short) random.nextInt();
      v[16] = n % 13 < FLOATS.length ? FLOATS[n % 13] : (float) (random.nextGaussian() * 1e6);
      v[17] = TextCast.toCharacter(ALL_TYPES.field(17).type(), words[n % words.length]);
      v[18] =
          TextCast.toCharacter(
              ALL_TYPES.field(18).type(),
              n % 3 == 0 ? words[n % words.length] : Long.toString(random.nextLong(), 36));
      v[19] = Instant.ofEpochMilli(random.nextLong() % 100_000_000_000_000L);
      v[20] =
          n % 23 == 0
              ? INSTANTS[n % INSTANTS.length]
              : Instant.ofEpochSecond(
                  random.nextLong() % 10_000_000_000L, random.nextInt(1_000_000) * 1000L);
      v[21] = Instant.ofEpochSecond(random.nextInt());
      for (int i = 1; i < ALL_TYPES.size(); i++) {
        if (ALL_TYPES.field(i).type().nullable() && random.nextInt(5) == 0) {
          v[i] = null;
        }
      }
      rows.add(GenericRow.wrap(v));
    }
    return rows;
  }
}
