package dev.lockstep.engine.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.PredicateBuilder;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roaringbitmap.RoaringBitmap;

/**
 * The Parquet reader's late materialization ({@link ReadOptions#rowFilter()} and {@link
 * ReadOptions#deleted()}): for random rows of every type, random predicates, random deleted
 * positions and random projections (the filter's columns always read, as the table read asks), each
 * read path returns exactly the rows of the full read that are not deleted and make the predicate
 * TRUE, with the columns not read as NULL. The columnar paths (pages decoded by the engine, and
 * parquet-column's {@code ColumnReader}) filter the rows themselves; the record-assembly path
 * leaves the filter to the caller, so it is compared after filtering. With the filter also as skip
 * filter, row groups are skipped, and pages by the page indexes (engine-decoded path), and
 * positions still count their rows.
 */
class LateMaterializationTest {

  /** Columns the random predicates compare (every type but BYTES, which has no order). */
  private static final int[] FILTER_COLUMNS = {0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16};

  @TempDir java.nio.file.Path dir;

  private final LocalFileIO io = new LocalFileIO();

  /**
   * With small row groups (many, each below one batch) and large ones (one batch ending inside a
   * page, whole pages without a kept row).
   */
  @ParameterizedTest(name = "block size {0}")
  @ValueSource(ints = {16 * 1024, 4 * 1024 * 1024})
  void everyPathReturnsTheFullReadFilteredWithoutTheDeletedRows(int blockSize) throws IOException {
    List<GenericRow> rows = FileFormatRoundTripTest.rows(5000, blockSize);
    ParquetFileFormat parquet = new ParquetFileFormat("zstd", blockSize, 1024);
    Path file = Path.of(dir.toString()).child("data.parquet");
    try (FormatWriter writer = parquet.createWriter(io, file, FileFormatRoundTripTest.ALL_TYPES)) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
    Random random = new Random(blockSize + 1);
    PredicateBuilder b = new PredicateBuilder(FileFormatRoundTripTest.ALL_TYPES);
    long skippedGroups = 0;
    long skippedPages = 0;
    for (int round = 0; round < 24; round++) {
      Predicate predicate = randomPredicate(random, b, rows, 2);
      if (round % 2 == 0) {
        // A range of the clustered column (the row's position): whole row groups skipped.
        predicate =
            PredicateBuilder.and(
                predicate, b.greaterOrEqual("_SEQUENCE", (long) random.nextInt(rows.size())));
      }
      RoaringBitmap deleted = new RoaringBitmap();
      int kind = random.nextInt(4);
      for (int i = 0; i < rows.size(); i++) {
        if (kind == 1 && random.nextInt(10) == 0
            || kind == 2 && random.nextInt(10) != 0
            || kind == 3 && i >= 1000 && i < 3500) {
          deleted.add(i);
        }
      }
      boolean[] columns = new boolean[FileFormatRoundTripTest.ALL_TYPES.size()];
      for (int i = 0; i < columns.length; i++) {
        columns[i] = random.nextInt(3) == 0;
      }
      predicate.columns().forEach(i -> columns[i] = true);
      boolean skip = random.nextBoolean();
      ScanMetrics metrics = new ScanMetrics();
      ReadOptions options =
          new ReadOptions(
              columns, skip ? predicate : null, metrics, predicate, kind == 0 ? null : deleted);
      List<GenericRow> expected = new ArrayList<>();
      for (int i = 0; i < rows.size(); i++) {
        if (!deleted.contains(i) || kind == 0) {
          GenericRow row = readColumns(rows.get(i), columns);
          if (predicate.test(row)) {
            expected.add(row);
          }
        }
      }
      String as = "round " + round + ": " + predicate + ", deleted kind " + kind + ", skip " + skip;
      assertThat(read(parquet.createReader(io, file, FileFormatRoundTripTest.ALL_TYPES, options)))
          .as(as)
          .isEqualTo(expected);
      skippedGroups += metrics.rowGroupsSkipped.get();
      skippedPages += metrics.pagesSkipped.get();
      assertThat(
              read(
                  parquet.createReader(
                      io, file, FileFormatRoundTripTest.ALL_TYPES, options, true, false)))
          .as(as + " (ColumnReader)")
          .isEqualTo(expected);
      List<GenericRow> record =
          read(parquet.createReader(io, file, FileFormatRoundTripTest.ALL_TYPES, options, false));
      assertThat(record.stream().filter(predicate::test).toList())
          .as(as + " (record assembly)")
          .isEqualTo(expected);
      // Avro leaves the filter to the caller and drops the deleted rows.
      AvroFileFormat avro = new AvroFileFormat("none");
      Path avroFile = Path.of(dir.toString()).child("data-" + round + ".avro");
      if (round < 2) {
        try (FormatWriter writer =
            avro.createWriter(io, avroFile, FileFormatRoundTripTest.ALL_TYPES)) {
          for (GenericRow row : rows) {
            writer.write(row);
          }
        }
        assertThat(
                read(avro.createReader(io, avroFile, FileFormatRoundTripTest.ALL_TYPES, options))
                    .stream()
                    .filter(predicate::test)
                    .toList())
            .as(as + " (avro)")
            .isEqualTo(expected);
      }
    }
    if (blockSize < 1024 * 1024) {
      assertThat(skippedGroups).as("some row groups were skipped").isPositive();
    } else {
      // One row group of many pages: the page indexes skip inside it.
      assertThat(skippedPages).as("some pages were skipped").isPositive();
    }
  }

  /** A row filter on a column that is not read is left to the caller: no row is dropped for it. */
  @Test
  void aFilterOnAColumnNotReadDropsNoRow() throws IOException {
    List<GenericRow> rows = FileFormatRoundTripTest.rows(3000, 5);
    ParquetFileFormat parquet = new ParquetFileFormat("zstd", 16 * 1024, 1024);
    Path file = Path.of(dir.toString()).child("data.parquet");
    try (FormatWriter writer = parquet.createWriter(io, file, FileFormatRoundTripTest.ALL_TYPES)) {
      for (GenericRow row : rows) {
        writer.write(row);
      }
    }
    boolean[] columns = new boolean[FileFormatRoundTripTest.ALL_TYPES.size()];
    columns[4] = true;
    Predicate onUnread =
        new PredicateBuilder(FileFormatRoundTripTest.ALL_TYPES).equal("i", rows.get(0).get(0));
    RoaringBitmap deleted = RoaringBitmap.bitmapOf(0, 1, 2999);
    List<GenericRow> read =
        read(
            parquet.createReader(
                io,
                file,
                FileFormatRoundTripTest.ALL_TYPES,
                new ReadOptions(columns, null, null, onUnread, deleted)));
    List<GenericRow> expected = new ArrayList<>();
    for (int i = 2; i < 2999; i++) {
      expected.add(readColumns(rows.get(i), columns));
    }
    assertThat(read).isEqualTo(expected);
  }

  private static GenericRow readColumns(GenericRow row, boolean[] columns) {
    Object[] v = new Object[row.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = columns[i] ? row.get(i) : null;
    }
    return GenericRow.wrap(v);
  }

  private static Predicate randomPredicate(
      Random random, PredicateBuilder b, List<GenericRow> rows, int depth) {
    int choice = random.nextInt(depth > 0 ? 10 : 7);
    int index = FILTER_COLUMNS[random.nextInt(FILTER_COLUMNS.length)];
    String column = FileFormatRoundTripTest.ALL_TYPES.field(index).name();
    Object literal = rows.get(random.nextInt(rows.size())).get(index);
    if (literal == null) {
      return random.nextBoolean() ? b.isNull(column) : b.isNotNull(column);
    }
    switch (choice) {
      case 0:
        return b.equal(column, literal);
      case 1:
        return b.lessThan(column, literal);
      case 2:
        return b.greaterOrEqual(column, literal);
      case 3:
        return b.notEqual(column, literal);
      case 4:
        Object other = rows.get(random.nextInt(rows.size())).get(index);
        return b.in(column, other == null ? List.of(literal) : List.of(literal, other));
      case 5:
        return b.isNull(column);
      case 6:
        return b.lessOrEqual(column, literal);
      case 7:
        return PredicateBuilder.and(
            randomPredicate(random, b, rows, depth - 1),
            randomPredicate(random, b, rows, depth - 1));
      case 8:
        return PredicateBuilder.or(
            randomPredicate(random, b, rows, depth - 1),
            randomPredicate(random, b, rows, depth - 1));
      default:
        return PredicateBuilder.not(randomPredicate(random, b, rows, depth - 1));
    }
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
}
