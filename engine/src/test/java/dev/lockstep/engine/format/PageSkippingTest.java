package dev.lockstep.engine.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.PredicateBuilder;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * Page skipping by Parquet's column and offset indexes ({@link PageIndexes}): one file of 20,000
 * rows in one row group, sorted by {@code k}, with small pages whose boundaries differ from column
 * to column (a long, a nullable string with runs of nulls, a nullable int, a double). A filter on a
 * narrow range of {@code k} reads far fewer pages than the full read (counted in {@link
 * ScanMetrics#pagesRead}, not timed) and returns exactly the rows of the full read that make it
 * TRUE, with and without deleted positions, for filters that combine columns by AND, OR and NOT.
 */
class PageSkippingTest {

  private static final RowType TYPE =
      new RowType(
          List.of(
              new DataField(0, "k", DataType.bigint().notNull()),
              new DataField(1, "s", DataType.string()),
              new DataField(2, "n", DataType.intType()),
              new DataField(3, "d", DataType.doubleType())));

  private static final int ROWS = 20_000;

  @TempDir java.nio.file.Path dir;

  private final LocalFileIO io = new LocalFileIO();
  private final ParquetFileFormat parquet =
      new ParquetFileFormat("zstd", 64L * 1024 * 1024, 2 * 1024);
  private final List<GenericRow> rows = new ArrayList<>();
  private Path file;

  @BeforeEach
  void write() throws IOException {
    Random random = new Random(3);
    file = Path.of(dir.toString()).child("data.parquet");
    try (FormatWriter writer = parquet.createWriter(io, file, TYPE)) {
      for (int i = 0; i < ROWS; i++) {
        GenericRow row =
            GenericRow.of(
                (long) i * 3,
                (i / 700) % 3 == 0 ? null : "v" + Long.toString(random.nextLong(), 36),
                random.nextInt(9) == 0 ? null : i / 10,
                random.nextGaussian());
        rows.add(row);
        writer.write(row);
      }
    }
  }

  /** parquet-mr's writer gives every column chunk a column index and an offset index. */
  @Test
  void everyColumnChunkHasPageIndexes() throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new ParquetFileFormat.FileInput(io, file),
            HadoopReadOptions.builder(new Configuration(false)).build())) {
      assertThat(reader.getRowGroups()).hasSize(1);
      for (BlockMetaData block : reader.getRowGroups()) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          assertThat(reader.readColumnIndex(chunk)).as("%s", chunk.getPath()).isNotNull();
          assertThat(reader.readOffsetIndex(chunk).getPageCount())
              .as("%s", chunk.getPath())
              .isGreaterThan(10);
        }
      }
    }
  }

  @Test
  void aNarrowKeyRangeReadsFewPagesAndTheRowsOfTheFullReadFiltered() throws IOException {
    PredicateBuilder b = new PredicateBuilder(TYPE);
    ScanMetrics full = new ScanMetrics();
    List<GenericRow> all = read(new ReadOptions(null, null, full, null, null));
    assertThat(all).isEqualTo(rows);
    assertThat(full.pagesSkipped.get()).isZero();

    Predicate filter =
        PredicateBuilder.and(b.greaterOrEqual("k", 30_000L), b.lessThan("k", 30_600L));
    ScanMetrics filtered = new ScanMetrics();
    assertThat(read(new ReadOptions(null, filter, filtered, filter, null)))
        .isEqualTo(all.stream().filter(filter::test).toList())
        .hasSize(200);
    assertThat(filtered.pagesSkipped.get()).as("%s", filtered).isPositive();
    assertThat(filtered.pagesRead.get() * 10)
        .as("pages decoded: filtered %s, full %s", filtered, full)
        .isLessThan(full.pagesRead.get());
    assertThat(filtered.rowGroupsRead.get()).isEqualTo(1);

    // The skip filter alone (no row filter): the rows of the pages read, a superset of the matches
    // and a subset of the file, every one of them whole.
    ScanMetrics skipOnly = new ScanMetrics();
    List<GenericRow> pagesOnly = read(new ReadOptions(null, filter, skipOnly, null, null));
    assertThat(pagesOnly).containsAll(all.stream().filter(filter::test).toList());
    assertThat(pagesOnly.size()).isLessThan(ROWS / 5);
    assertThat(all).containsAll(pagesOnly);
  }

  /**
   * Random filters on every column, combined by AND, OR and NOT, with random deleted positions and
   * projections (the filter's columns read): the rows of the full read, not deleted, making the
   * filter TRUE. Over all rounds, pages are skipped.
   */
  @Test
  void randomFiltersReturnTheFullReadFiltered() throws IOException {
    Random random = new Random(11);
    PredicateBuilder b = new PredicateBuilder(TYPE);
    long skipped = 0;
    for (int round = 0; round < 60; round++) {
      Predicate filter = randomPredicate(random, b, 2);
      RoaringBitmap deleted = new RoaringBitmap();
      if (random.nextBoolean()) {
        for (int i = 0; i < ROWS; i++) {
          if (random.nextInt(4) == 0) {
            deleted.add(i);
          }
        }
      }
      boolean[] columns = new boolean[TYPE.size()];
      for (int i = 0; i < columns.length; i++) {
        columns[i] = random.nextBoolean();
      }
      filter.columns().forEach(i -> columns[i] = true);
      ScanMetrics metrics = new ScanMetrics();
      List<GenericRow> expected = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        Object[] v = new Object[TYPE.size()];
        for (int c = 0; c < v.length; c++) {
          v[c] = columns[c] ? rows.get(i).get(c) : null;
        }
        GenericRow row = GenericRow.wrap(v);
        if (!deleted.contains(i) && filter.test(row)) {
          expected.add(row);
        }
      }
      assertThat(read(new ReadOptions(columns, filter, metrics, filter, deleted)))
          .as("round %d: %s (%s)", round, filter, metrics)
          .isEqualTo(expected);
      skipped += metrics.pagesSkipped.get();
    }
    assertThat(skipped).as("pages skipped over all rounds").isPositive();
  }

  private static Predicate randomPredicate(Random random, PredicateBuilder b, int depth) {
    int choice = random.nextInt(depth > 0 ? 11 : 8);
    switch (choice) {
      case 0:
        long from = random.nextInt(ROWS * 3);
        return PredicateBuilder.and(
            b.greaterOrEqual("k", from), b.lessThan("k", from + random.nextInt(3000)));
      case 1:
        return b.lessThan("k", (long) random.nextInt(ROWS * 3));
      case 2:
        return b.equal("n", random.nextInt(ROWS / 10));
      case 3:
        return random.nextBoolean() ? b.isNull("s") : b.isNotNull("s");
      case 4:
        return b.greaterThan("s", "v" + Long.toString(random.nextInt(36), 36));
      case 5:
        return random.nextBoolean() ? b.isNull("n") : b.greaterOrEqual("n", random.nextInt(2000));
      case 6:
        return b.lessThan("d", random.nextGaussian());
      case 7:
        return b.in("k", List.of((long) random.nextInt(ROWS) * 3, (long) random.nextInt(ROWS) * 3));
      case 8:
        return PredicateBuilder.and(
            randomPredicate(random, b, depth - 1), randomPredicate(random, b, depth - 1));
      case 9:
        return PredicateBuilder.or(
            randomPredicate(random, b, depth - 1), randomPredicate(random, b, depth - 1));
      default:
        return PredicateBuilder.not(randomPredicate(random, b, depth - 1));
    }
  }

  private List<GenericRow> read(ReadOptions options) throws IOException {
    List<GenericRow> read = new ArrayList<>();
    try (FormatReader reader = parquet.createReader(io, file, TYPE, options)) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        read.add(r);
      }
      assertThat(reader.next()).isNull();
    }
    return read;
  }
}
