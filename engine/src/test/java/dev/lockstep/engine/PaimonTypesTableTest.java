package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.PredicateBuilder;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TINYINT, SMALLINT, FLOAT, CHAR(n), VARCHAR(n) and TIMESTAMP_LTZ(p) as primary keys and values of
 * a table, in both formats (issue 25): keys come back in the type's order (negative numbers first;
 * FLOAT -0.0 before 0.0 and NaN last), the manifests keep min, max and null count, and =, <, IN and
 * IS NULL skip the files their statistics exclude and return exactly the matching rows; the schema
 * reads back from its file.
 */
class PaimonTypesTableTest {

  @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir;

  /** Per type: five distinct values in ascending order. */
  static Stream<Arguments> types() {
    List<Object[]> types =
        List.of(
            new Object[] {
              DataType.tinyint(), List.of((byte) -128, (byte) -2, (byte) 0, (byte) 1, (byte) 127)
            },
            new Object[] {
              DataType.smallint(),
              List.of((short) -32768, (short) -300, (short) -1, (short) 0, (short) 32767)
            },
            new Object[] {
              DataType.floatType(), List.of(-Float.MAX_VALUE, -1.5f, -0.0f, 0.0f, Float.NaN)
            },
            new Object[] {DataType.charType(3), List.of("!!!", "A  ", "a  ", "ab ", "é日x")},
            new Object[] {DataType.varchar(4), List.of("", "A", "a", "ab", "日本語x")},
            new Object[] {
              DataType.timestampLtz(6),
              List.of(
                  Instant.parse("0001-01-01T00:00:00Z"),
                  Instant.parse("1969-12-31T23:59:59.999999Z"),
                  Instant.EPOCH,
                  Instant.parse("2024-05-01T10:00:00.123456Z"),
                  Instant.parse("9999-12-31T23:59:59.999999Z"))
            },
            new Object[] {
              DataType.timestampLtz(0),
              List.of(
                  Instant.parse("1900-01-01T00:00:00Z"),
                  Instant.parse("1969-12-31T23:59:59Z"),
                  Instant.EPOCH,
                  Instant.parse("2024-05-01T10:00:00Z"),
                  Instant.parse("2100-01-01T00:00:00Z"))
            });
    List<Arguments> cases = new ArrayList<>();
    for (String format : List.of("parquet", "avro")) {
      for (Object[] t : types) {
        cases.add(Arguments.of(format, t[0], t[1]));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("types")
  void keysValuesStatisticsAndPushdown(String format, DataType type, List<Object> values)
      throws Exception {
    Identifier id = new Identifier("db", "t");
    FileStoreTable table =
        TestTables.catalog(dir)
            .createTable(
                id,
                Schema.newBuilder()
                    .column("k", type.notNull())
                    .column("v", type)
                    .column("n", DataType.intType())
                    .primaryKey("k")
                    .options(Map.of("file.format", format, "metadata.stats-mode", "full"))
                    .build());
    // One file per key, written in descending order: the read must order them. v is NULL in the
    // middle row.
    List<GenericRow> expected = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      expected.add(GenericRow.of(values.get(i), i == 2 ? null : values.get(i), i));
    }
    for (int i = values.size() - 1; i >= 0; i--) {
      try (TableWrite write = table.newWrite("u")) {
        write.write(expected.get(i));
        table.newCommit("u").commit(values.size() - i, write.prepareCommit());
      }
    }
    table.close();
    table = TestTables.catalog(dir).getTable(id);
    assertThat(table.schema().rowType().field(0).type()).isEqualTo(type.notNull());
    assertThat(table.newRead().readAll(table.newScan().plan()))
        .as("rows in key order")
        .containsExactlyElementsOf(expected);

    // Each file's statistics: min = max = its key, v's null count 1 in the middle row's file.
    List<DataFileMeta> files = new ArrayList<>();
    for (Split split : table.newScan().plan().splits()) {
      files.addAll(split.files());
    }
    assertThat(files).hasSize(values.size());
    for (DataFileMeta file : files) {
      FieldStats[] stats = table.valueStatsCodec().decode(file.valueStats());
      Object key = stats[0].min();
      assertThat(values).contains(key);
      assertThat(stats[0]).isEqualTo(new FieldStats(key, key, 0L));
      boolean middle = key.equals(values.get(2));
      assertThat(stats[1].nullCount()).as("v nulls of %s", key).isEqualTo(middle ? 1L : 0L);
    }

    PredicateBuilder p = new PredicateBuilder(table.schema().rowType());
    check(table, p.equal("k", values.get(2)), expected.subList(2, 3), 4);
    check(table, p.equal("k", values.get(4)), expected.subList(4, 5), 4);
    check(table, p.lessThan("k", values.get(2)), expected.subList(0, 2), 3);
    check(
        table,
        p.in("k", List.of(values.get(0), values.get(3))),
        List.of(expected.get(0), expected.get(3)),
        3);
    check(table, p.isNull("k"), List.of(), 5);
    // A value column's filter: exact rows (files are kept where other versions may exist).
    check(table, p.isNull("v"), expected.subList(2, 3), -1);
    check(table, p.lessThan("v", values.get(1)), expected.subList(0, 1), -1);
    table.close();
  }

  /** Reads with {@code filter}: exactly {@code rows}; {@code skipped} files (-1: any number). */
  private static void check(
      FileStoreTable table, Predicate filter, List<GenericRow> rows, int skipped) throws Exception {
    ScanMetrics metrics = new ScanMetrics();
    var read = table.newRead().withFilter(filter);
    List<GenericRow> actual = new ArrayList<>();
    for (Split split : table.newScan().withFilter(filter).withMetrics(metrics).plan().splits()) {
      actual.addAll(read.read(split));
    }
    assertThat(actual).as("%s", filter).containsExactlyElementsOf(rows);
    if (skipped >= 0) {
      assertThat(metrics.filesSkipped.get()).as("%s: %s", filter, metrics).isEqualTo(skipped);
    }
  }
}
