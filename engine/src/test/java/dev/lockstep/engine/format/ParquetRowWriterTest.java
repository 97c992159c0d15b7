package dev.lockstep.engine.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.StatsCollector;
import dev.lockstep.engine.predicate.StatsMode;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine's Parquet write path ({@link ParquetRowWriter}: values straight into parquet-mr's
 * column writers, file statistics from the footer) against parquet-mr's {@code ParquetWriter} with
 * the record consumer (the earlier path, now the test-only {@link ReferenceParquetWriter}): every
 * type, NULLs, NaN, -0.0 and extremes read back as written; the files have the same row groups'
 * worth of rows, encodings and footer statistics; and the file statistics it reports are exactly
 * what the engine's own row-by-row collector computes.
 */
class ParquetRowWriterTest {

  @TempDir java.nio.file.Path dir;

  private final LocalFileIO io = new LocalFileIO();
  private static final RowType TYPES = FileFormatRoundTripTest.ALL_TYPES;

  /** Writes {@code rows} with the engine's path ({@link ParquetFileFormat#createWriter}). */
  private FormatWriter write(ParquetFileFormat format, String name, List<GenericRow> rows)
      throws IOException {
    Path file = Path.of(dir.toString()).child(name);
    FormatWriter writer = format.createWriter(io, file, TYPES);
    try (writer) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
    return writer;
  }

  /** Writes {@code rows} with parquet-mr's {@code ParquetWriter} and the same settings. */
  private void writeReference(String name, List<GenericRow> rows, long blockSize, int pageSize)
      throws IOException {
    Path file = Path.of(dir.toString()).child(name);
    try (ReferenceParquetWriter writer =
        ReferenceParquetWriter.create(io, file, TYPES, "zstd", blockSize, pageSize, Set.of())) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
  }

  private List<GenericRow> read(ParquetFileFormat format, String name) throws IOException {
    List<GenericRow> rows = new ArrayList<>();
    try (FormatReader reader =
        format.createReader(io, Path.of(dir.toString()).child(name), TYPES)) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        rows.add(r);
      }
    }
    return rows;
  }

  private ParquetMetadata footer(String name) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new ParquetFileFormat.FileInput(io, Path.of(dir.toString()).child(name)),
            HadoopReadOptions.builder(new Configuration(false)).build())) {
      return reader.getFooter();
    }
  }

  @ParameterizedTest(name = "block size {0}")
  @ValueSource(ints = {16 * 1024, 4 * 1024 * 1024})
  void writesWhatParquetWriterWritesForEveryType(int blockSize) throws IOException {
    List<GenericRow> rows = FileFormatRoundTripTest.rows(6000, blockSize);
    ParquetFileFormat format = new ParquetFileFormat("zstd", blockSize, 1024);
    write(format, "direct.parquet", rows);
    writeReference("record.parquet", rows, blockSize, 1024);
    assertThat(read(format, "direct.parquet")).isEqualTo(rows);
    assertThat(read(format, "record.parquet")).isEqualTo(rows);

    ParquetMetadata direct = footer("direct.parquet");
    ParquetMetadata record = footer("record.parquet");
    assertThat(direct.getFileMetaData().getSchema())
        .isEqualTo(record.getFileMetaData().getSchema());
    if (blockSize < 1 << 20) {
      assertThat(direct.getBlocks()).as("row groups of about the block size").hasSizeGreaterThan(3);
    } else {
      assertThat(direct.getBlocks()).hasSize(1);
    }
    assertThat(rowsOf(direct)).isEqualTo(rows.size());
    // In one row group (with several, the two cut row groups at slightly different rows, and a
    // dictionary may outgrow its page in one and not the other) the same encodings, but a column
    // whose first rows hardly repeat goes plain at once where parquet-mr tries a dictionary first
    // and falls back to plain.
    for (int c = 0; c < TYPES.size() && blockSize >= 1 << 20; c++) {
      assertThat(encodingsOf(record, c))
          .as("encodings of %s", TYPES.field(c).name())
          .containsAll(encodingsOf(direct, c));
    }
    // The footer statistics of both files give the same file statistics (in parquet-mr's order).
    ParquetRowWriter.FloatingBounds nullsOnly = (c, n) -> new FieldStats(null, null, n);
    FieldStats[] fromDirect = ParquetRowWriter.statsOf(direct, TYPES, TYPES.size(), nullsOnly);
    FieldStats[] fromRecord = ParquetRowWriter.statsOf(record, TYPES, TYPES.size(), nullsOnly);
    for (int c = 0; c < TYPES.size(); c++) {
      assertSameStats(TYPES.field(c).name(), fromDirect[c], fromRecord[c]);
    }
  }

  @ParameterizedTest(name = "block size {0}")
  @ValueSource(ints = {16 * 1024, 4 * 1024 * 1024})
  void fileStatisticsAreTheEnginesOwnForEveryType(int blockSize) throws IOException {
    for (long seed = 1; seed <= 3; seed++) {
      List<GenericRow> rows = FileFormatRoundTripTest.rows(4000, seed);
      FormatWriter writer =
          write(new ParquetFileFormat("zstd", blockSize, 1024), "stats" + seed + ".parquet", rows);
      assertThat(writer.keepsStats()).isTrue();
      assertStatsOfRows(rows, writer.stats(TYPES.size()));
    }
  }

  @Test
  void statisticsOfNullOnlyAndSpecialFloatingColumns() throws IOException {
    RowType type =
        new RowType(
            List.of(
                new DataField(0, "k", DataType.intType().notNull()),
                new DataField(1, "none", DataType.string()),
                new DataField(2, "d", DataType.doubleType()),
                new DataField(3, "f", DataType.floatType())));
    List<GenericRow> rows = new ArrayList<>();
    Object[][] floating = {
      {0.0, 0.0f}, {-0.0, -0.0f}, {null, null}, {Double.NaN, Float.NaN}, {-1e300, -1e30f}
    };
    for (int i = 0; i < 3000; i++) {
      Object[] f = floating[i % floating.length];
      rows.add(GenericRow.of(i, null, f[0], f[1]));
    }
    Path file = Path.of(dir.toString()).child("special.parquet");
    FormatWriter writer =
        new ParquetFileFormat("zstd", 8 * 1024, 1024).createWriter(io, file, type);
    try (writer) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
    FieldStats[] stats = writer.stats(4);
    assertThat(stats[0]).isEqualTo(new FieldStats(0, 2999, 0L));
    assertThat(stats[1]).isEqualTo(new FieldStats(null, null, 3000L));
    // Double.compare's order: -1e300 < -0.0 < 0.0 < NaN.
    assertThat(stats[2]).isEqualTo(new FieldStats(-1e300, Double.NaN, 600L));
    assertThat(stats[3]).isEqualTo(new FieldStats(-1e30f, Float.NaN, 600L));
    // Fewer columns than the file has: the first ones.
    assertThat(writer.stats(2)).containsExactly(stats[0], stats[1]);
    // Truncated as the table's stats mode says, as the row-by-row collector would.
    StatsMode[] modes = {StatsMode.COUNTS, StatsMode.NONE, StatsMode.FULL, StatsMode.DEFAULT};
    StatsCollector collector = new StatsCollector(modes);
    rows.forEach(collector::update);
    assertThat(StatsCollector.apply(modes, stats)).containsExactly(collector.result());
  }

  @Test
  void aRowWithNullInANotNullColumnIsRefusedWholeAndTheFileStaysReadable() throws IOException {
    List<GenericRow> rows = FileFormatRoundTripTest.rows(100, 5);
    Path file = Path.of(dir.toString()).child("refused.parquet");
    ParquetFileFormat format = new ParquetFileFormat("zstd", 1 << 20, 1024);
    try (FormatWriter writer = format.createWriter(io, file, TYPES)) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
      Object[] bad = new Object[TYPES.size()];
      for (int i = 0; i < bad.length; i++) {
        bad[i] = rows.get(0).get(i);
      }
      bad[12] = null;
      assertThatThrownBy(() -> writer.write(GenericRow.wrap(bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("odd name/with=chars");
      writer.write(rows.get(1));
    }
    List<GenericRow> expected = new ArrayList<>(rows);
    expected.add(rows.get(1));
    assertThat(read(format, "refused.parquet")).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} rows")
  @ValueSource(ints = {10, ParquetRowWriter.SAMPLE_ROWS - 1, ParquetRowWriter.SAMPLE_ROWS, 20_000})
  void columnsWhoseFirstRowsHardlyRepeatAreWrittenPlainFromTheStart(int count) throws IOException {
    RowType type =
        new RowType(
            List.of(
                new DataField(0, "unique", DataType.bigint()),
                new DataField(1, "text", DataType.string()),
                new DataField(2, "repeated", DataType.bigint()),
                new DataField(3, "label", DataType.string()),
                new DataField(4, "raw", DataType.bytes()),
                new DataField(5, "forced", DataType.intType())));
    List<GenericRow> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rows.add(
          GenericRow.of(
              i * 7919L,
              "text-" + i,
              (long) (i % 5),
              i % 4 == 0 ? null : "label-" + (i % 3),
              new byte[] {(byte) i, (byte) (i >> 8), (byte) (i >> 16)},
              i % 2));
    }
    Path file = Path.of(dir.toString()).child("sampled.parquet");
    ParquetRowWriter writer =
        new ParquetRowWriter(
            new ParquetFileFormat.FileOutput(io, file),
            type,
            1 << 20,
            Set.of("forced"),
            org.apache.parquet.hadoop.metadata.CompressionCodecName.ZSTD,
            new Configuration(false),
            128L << 20);
    try (writer) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
    if (count >= ParquetRowWriter.SAMPLE_MIN_VALUES) {
      assertThat(writer.sampledPlainColumns()).containsExactlyInAnyOrder("unique", "text", "raw");
    } else {
      assertThat(writer.sampledPlainColumns()).as("too few rows to judge").isEmpty();
    }
    List<GenericRow> read = new ArrayList<>();
    try (FormatReader reader =
        new ParquetFileFormat("zstd", 128L << 20, 1 << 20).createReader(io, file, type)) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        read.add(r);
      }
    }
    assertThat(read).hasSize(count);
    for (int i = 0; i < count; i++) {
      for (int c = 0; c < type.size(); c++) {
        if (c == 4) {
          assertThat((byte[]) read.get(i).get(c)).isEqualTo((byte[]) rows.get(i).get(c));
        } else {
          assertThat(read.get(i).get(c)).isEqualTo(rows.get(i).get(c));
        }
      }
    }
    ParquetMetadata footer = writer.footer();
    Set<Encoding> dictionary = Set.of(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
    for (int c = 0; c < type.size(); c++) {
      String name = type.field(c).name();
      boolean plain = name.equals("forced") || writer.sampledPlainColumns().contains(name);
      if (plain) {
        assertThat(encodingsOf(footer, c)).as(name).doesNotContainAnyElementsOf(dictionary);
      } else if (!name.equals("unique") && !name.equals("text") && !name.equals("raw")) {
        assertThat(encodingsOf(footer, c)).as(name).containsAnyElementsOf(dictionary);
      }
    }
  }

  @Test
  void aHeldBackRowOfTheWrongClassIsRefusedWhenWritten() throws IOException {
    List<GenericRow> rows = FileFormatRoundTripTest.rows(10, 9);
    Path file = Path.of(dir.toString()).child("wrong.parquet");
    ParquetFileFormat format = new ParquetFileFormat("zstd", 1 << 20, 1024);
    try (FormatWriter writer = format.createWriter(io, file, TYPES)) {
      writer.write(rows.get(0));
      Object[] bad = new Object[TYPES.size()];
      for (int i = 0; i < bad.length; i++) {
        bad[i] = rows.get(1).get(i);
      }
      bad[0] = 5L;
      assertThatThrownBy(() -> writer.write(GenericRow.wrap(bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'i'");
      writer.write(rows.get(2));
    }
    assertThat(read(format, "wrong.parquet")).containsExactly(rows.get(0), rows.get(2));
  }

  /** The engine's PLAIN pages are byte for byte parquet-mr's, page after page. */
  @Test
  void plainPagesAreParquetMrsBytes() throws IOException {
    ParquetPlainValues ours = new ParquetPlainValues(16);
    org.apache.parquet.column.values.plain.PlainValuesWriter theirs =
        new org.apache.parquet.column.values.plain.PlainValuesWriter(
            64, 1 << 20, new org.apache.parquet.bytes.HeapByteBufferAllocator());
    java.util.Random random = new java.util.Random(3);
    float[] floats = {Float.NaN, -0.0f, 0.0f, Float.MIN_VALUE, Float.NEGATIVE_INFINITY};
    double[] doubles = {Double.NaN, -0.0, 0.0, Double.MAX_VALUE, Double.NEGATIVE_INFINITY};
    for (int page = 0; page < 3; page++) {
      for (int i = 0; i < 5000; i++) {
        int v = i % 7 == 0 ? Integer.MIN_VALUE : random.nextInt();
        long l = i % 11 == 0 ? Long.MIN_VALUE : random.nextLong();
        byte[] b = new byte[random.nextInt(i % 100 == 0 ? 70_000 : 40)];
        random.nextBytes(b);
        org.apache.parquet.io.api.Binary binary =
            i % 2 == 0
                ? org.apache.parquet.io.api.Binary.fromConstantByteArray(b)
                : org.apache.parquet.io.api.Binary.fromString("t" + i);
        ours.writeInteger(v);
        theirs.writeInteger(v);
        ours.writeLong(l);
        theirs.writeLong(l);
        ours.writeFloat(floats[i % floats.length]);
        theirs.writeFloat(floats[i % floats.length]);
        ours.writeDouble(doubles[i % doubles.length]);
        theirs.writeDouble(doubles[i % doubles.length]);
        ours.writeBytes(binary);
        theirs.writeBytes(binary);
      }
      assertThat(ours.getBufferedSize()).isEqualTo(theirs.getBufferedSize());
      assertThat(ours.getBytes().toByteArray()).isEqualTo(theirs.getBytes().toByteArray());
      assertThat(ours.getEncoding()).isEqualTo(theirs.getEncoding());
      ours.reset();
      theirs.reset();
    }
  }

  private static long rowsOf(ParquetMetadata footer) {
    long n = 0;
    for (BlockMetaData block : footer.getBlocks()) {
      n += block.getRowCount();
    }
    return n;
  }

  private static Set<Encoding> encodingsOf(ParquetMetadata footer, int column) {
    Set<Encoding> encodings = new HashSet<>();
    for (BlockMetaData block : footer.getBlocks()) {
      ColumnChunkMetaData chunk = block.getColumns().get(column);
      encodings.addAll(chunk.getEncodings());
    }
    return encodings;
  }

  /** {@code stats} equal the engine's collector over {@code rows} in mode {@code full}. */
  private static void assertStatsOfRows(List<GenericRow> rows, FieldStats[] stats) {
    StatsMode[] full = new StatsMode[TYPES.size()];
    Arrays.fill(full, StatsMode.FULL);
    StatsCollector expected = new StatsCollector(full);
    rows.forEach(expected::update);
    FieldStats[] want = expected.result();
    assertThat(stats).hasSize(TYPES.size());
    for (int c = 0; c < TYPES.size(); c++) {
      assertSameStats(TYPES.field(c).name(), stats[c], want[c]);
    }
  }

  private static void assertSameStats(String column, FieldStats got, FieldStats want) {
    assertThat(got.nullCount()).as("nulls of %s", column).isEqualTo(want.nullCount());
    if (want.min() instanceof byte[]) {
      assertThat((byte[]) got.min()).as("min of %s", column).isEqualTo((byte[]) want.min());
      assertThat((byte[]) got.max()).as("max of %s", column).isEqualTo((byte[]) want.max());
      return;
    }
    assertThat(got.min()).as("min of %s", column).isEqualTo(want.min());
    assertThat(got.max()).as("max of %s", column).isEqualTo(want.max());
  }
}
