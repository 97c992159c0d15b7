package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.PredicateParser;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every column type round-trips with its statistics in the manifest, in both formats: min, max and
 * null count per column (DECIMAL of each physical width, TIMESTAMPs of second, milli and micro
 * precision, strings and bytes truncated as an upper bound, an all-NULL column), each column in its
 * own {@code fields.<name>.stats-mode} (issue 20).
 */
class StatsRoundTripTest {

  @TempDir java.nio.file.Path dir;

  private static Schema.Builder schema() {
    return Schema.newBuilder()
        .column("i", DataType.intType())
        .column("b", DataType.bigint())
        .column("f", DataType.doubleType())
        .column("t", DataType.booleanType())
        .column("s", DataType.string())
        .column("y", DataType.bytes())
        .column("d1", DataType.decimal(5, 2))
        .column("d2", DataType.decimal(18, 4))
        .column("d3", DataType.decimal(30, 6))
        .column("day", DataType.date())
        .column("ts", DataType.timestamp())
        .column("empty", DataType.string());
  }

  private static List<GenericRow> rows() {
    return List.of(
        GenericRow.of(
            3,
            -5L,
            1.5,
            true,
            "abcdef",
            new byte[] {1, 2, 3},
            new BigDecimal("-1.25"),
            new BigDecimal("123456789.0001"),
            new BigDecimal("-123456789012345678901234.000001"),
            LocalDate.of(2024, 5, 1),
            LocalDateTime.of(2024, 5, 1, 10, 0, 0),
            null),
        GenericRow.of(
            -7,
            9_000_000_000L,
            -0.5,
            false,
            "abz\uffff",
            new byte[] {1, (byte) 0xFF, (byte) 0xFF, 4},
            new BigDecimal("999.99"),
            new BigDecimal("-0.0001"),
            new BigDecimal("5.000000"),
            LocalDate.of(1969, 12, 31),
            LocalDateTime.of(2024, 5, 1, 10, 0, 0, 123_000_000),
            null),
        GenericRow.of(
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            LocalDateTime.of(2024, 5, 1, 10, 0, 0, 123_456_000),
            null),
        GenericRow.of(
            0,
            0L,
            2.0,
            null,
            "ab",
            new byte[] {1},
            new BigDecimal("0.00"),
            new BigDecimal("0.0000"),
            new BigDecimal("0.000000"),
            LocalDate.of(2024, 5, 2),
            null,
            null));
  }

  private static DataFileMeta onlyFile(FileStoreTable table) throws Exception {
    List<Split> splits = table.newScan().plan().splits();
    assertThat(splits).hasSize(1);
    assertThat(splits.get(0).files()).hasSize(1);
    return splits.get(0).files().get(0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"parquet", "avro"})
  void everyTypeRoundTripsWithItsStatistics(String format) throws Exception {
    Map<String, String> options = new HashMap<>();
    options.put("file.format", format);
    options.put("metadata.stats-mode", "full");
    options.put("fields.s.stats-mode", "truncate(2)");
    options.put("fields.y.stats-mode", "truncate(2)");
    options.put("fields.t.stats-mode", "counts");
    options.put("fields.f.stats-mode", "none");
    FileStoreTable table =
        TestTables.catalog(dir)
            .createTable(new Identifier("db", "all"), schema().options(options).build());
    try (TableWrite write = table.newWrite("u")) {
      for (GenericRow r : rows()) {
        write.write(r);
      }
      table.newCommit("u").commit(1, write.prepareCommit());
    }
    assertThat(table.newRead().readAll(table.newScan().plan()))
        .containsExactlyInAnyOrderElementsOf(rows());
    DataFileMeta file = onlyFile(table);
    assertThat(file.fileName()).endsWith("." + format);
    FieldStats[] stats = table.valueStatsCodec().decode(file.valueStats());
    assertThat(stats[0]).isEqualTo(new FieldStats(-7, 3, 1L));
    assertThat(stats[1]).isEqualTo(new FieldStats(-5L, 9_000_000_000L, 1L));
    assertThat(stats[2]).as("f: none").isEqualTo(FieldStats.UNKNOWN);
    assertThat(stats[3]).as("t: counts").isEqualTo(new FieldStats(null, null, 2L));
    // "ab" is short enough; the max "abz\uffff" keeps "ab" and raises 'b' to 'c'.
    assertThat(stats[4]).isEqualTo(new FieldStats("ab", "ac", 1L));
    assertThat((byte[]) stats[5].min()).containsExactly(1);
    // {1, FF, FF, 4}: FF cannot be raised, so the bound is {2}.
    assertThat((byte[]) stats[5].max()).containsExactly(2);
    assertThat(stats[5].nullCount()).isEqualTo(1L);
    assertThat(stats[6])
        .isEqualTo(new FieldStats(new BigDecimal("-1.25"), new BigDecimal("999.99"), 1L));
    assertThat(stats[7])
        .isEqualTo(new FieldStats(new BigDecimal("-0.0001"), new BigDecimal("123456789.0001"), 1L));
    assertThat(stats[8])
        .isEqualTo(
            new FieldStats(
                new BigDecimal("-123456789012345678901234.000001"),
                new BigDecimal("5.000000"),
                1L));
    assertThat(stats[9])
        .isEqualTo(new FieldStats(LocalDate.of(1969, 12, 31), LocalDate.of(2024, 5, 2), 1L));
    assertThat(stats[10])
        .isEqualTo(
            new FieldStats(
                LocalDateTime.of(2024, 5, 1, 10, 0, 0),
                LocalDateTime.of(2024, 5, 1, 10, 0, 0, 123_456_000),
                1L));
    assertThat(stats[11]).as("all NULL").isEqualTo(new FieldStats(null, null, 4L));

    // The statistics skip the file where they exclude every row, and never where they do not.
    for (String where :
        List.of(
            "empty IS NOT NULL",
            "i > 3",
            "s > 'ac'",
            "s = 'ad'",
            "ts > TIMESTAMP '2024-05-01 10:00:00.123456'",
            "d3 < -123456789012345678901234.000001",
            "day < DATE '1969-12-31'",
            "empty = 'x' OR i IN (-8, 4)")) {
      ScanMetrics metrics = new ScanMetrics();
      var filter = PredicateParser.parse(table.schema().rowType(), where);
      assertThat(table.newScan().withFilter(filter).withMetrics(metrics).plan().splits())
          .as(where)
          .isEmpty();
      assertThat(metrics.filesSkipped.get()).as(where).isEqualTo(1);
    }
    for (String where :
        List.of(
            "empty IS NULL",
            "i = 3",
            "s = 'abz\uffff'",
            "s >= 'abz'",
            "f > 100",
            "t = TRUE",
            "ts = TIMESTAMP '2024-05-01 10:00:00.123'",
            "d2 IN (-0.0001, 7)")) {
      var filter = PredicateParser.parse(table.schema().rowType(), where);
      List<GenericRow> expected = new ArrayList<>();
      rows().stream().filter(filter::test).forEach(expected::add);
      var read = table.newRead().withFilter(filter);
      List<GenericRow> actual = new ArrayList<>();
      for (Split split : table.newScan().withFilter(filter).plan().splits()) {
        actual.addAll(read.read(split));
      }
      assertThat(actual).as(where).containsExactlyInAnyOrderElementsOf(expected);
    }
    table.close();
  }

  @Test
  void statsModeNoneKeepsNoStatisticsAndSkipsNothing() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, Map.of("metadata.stats-mode", "none"));
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of("w", 1L));
      table.newCommit("u").commit(1, write.prepareCommit());
    }
    assertThat(onlyFile(table).valueStats()).isNull();
    ScanMetrics metrics = new ScanMetrics();
    var filter = PredicateParser.parse(table.schema().rowType(), "n > 5");
    assertThat(table.newScan().withFilter(filter).withMetrics(metrics).plan().splits()).hasSize(1);
    assertThat(metrics.filesSkipped.get()).isZero();
    assertThat(table.newRead().withFilter(filter).readAll(table.newScan().plan())).isEmpty();
    table.close();
  }

  @Test
  void badStatsModesAreRefusedWithTheKeyAndTheFix() {
    assertThatThrownBy(
            () -> TestTables.appendTable(dir, Map.of("metadata.stats-mode", "truncate(0)")))
        .hasMessageContaining("metadata.stats-mode")
        .hasMessageContaining("truncate(n)");
    assertThatThrownBy(() -> TestTables.appendTable(dir, Map.of("fields.nope.stats-mode", "full")))
        .hasMessage(
            "Option 'fields.nope.stats-mode' names no column; the columns are [writer, n].");
    assertThatThrownBy(() -> TestTables.appendTable(dir, Map.of("fields.n.stats-mode", "most")))
        .hasMessageContaining("Option 'fields.n.stats-mode': Stats mode 'most' is unknown");
  }
}
