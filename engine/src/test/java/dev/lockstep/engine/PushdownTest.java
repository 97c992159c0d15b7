package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.PredicateParser;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.predicate.StatsView;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pushdown skips for real (counted by {@link ScanMetrics} and by the data files a counting store
 * saw opened), and the primary-key rule: a filter on value columns never skips a file whose keys
 * may have other versions elsewhere (issue 20).
 */
class PushdownTest {

  @TempDir java.nio.file.Path dir;

  private final Set<String> opened = ConcurrentHashMap.newKeySet();

  private FileSystemCatalog countingCatalog() {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    io.beforeLanding(
        FaultPlan.Operation.READ,
        (operation, path) -> {
          if (path.name().startsWith("data-")) {
            opened.add(path.name());
          }
        });
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private static List<GenericRow> read(FileStoreTable table, Predicate filter, ScanMetrics metrics)
      throws Exception {
    List<GenericRow> rows = new ArrayList<>();
    var read = table.newRead().withFilter(filter).withMetrics(metrics);
    for (Split split : table.newScan().withFilter(filter).withMetrics(metrics).plan().splits()) {
      rows.addAll(read.read(split));
    }
    return rows;
  }

  @ParameterizedTest
  @ValueSource(strings = {"parquet", "avro"})
  void anAppendTableSkipsFilesByStatisticsAndParquetRowGroupsByTheFooter(String format)
      throws Exception {
    FileStoreTable table =
        countingCatalog()
            .createTable(
                new Identifier("db", "log"),
                Schema.newBuilder()
                    .column("n", DataType.bigint())
                    .column("s", DataType.string())
                    .options(
                        Map.of(
                            "file.format", format,
                            "parquet.block.size", "1 kb",
                            "parquet.page.size", "256 b",
                            // Ten files, one per commit: a writer that is not write-only compacts
                            // five committed files in the background, and hands the result out with
                            // its batch when it finishes in time (a fresh-clone CI run met that).
                            "write-only", "true"))
                    .build());
    TableCommit commit = table.newCommit("u");
    for (int c = 0; c < 10; c++) {
      try (TableWrite write = table.newWrite("u")) {
        for (long n = c * 2000L; n < (c + 1) * 2000L; n++) {
          write.write(GenericRow.of(n, "row " + n));
        }
        commit.commit(c + 1, write.prepareCommit());
      }
    }
    Predicate filter = PredicateParser.parse(table.schema().rowType(), "n >= 10000 AND n < 10100");
    ScanMetrics metrics = new ScanMetrics();
    opened.clear();
    List<GenericRow> rows = read(table, filter, metrics);
    assertThat(rows)
        .hasSize(100)
        .allMatch(r -> (Long) r.get(0) >= 10000 && (Long) r.get(0) < 10100);
    assertThat(metrics.filesSkipped.get()).as("%s", metrics).isEqualTo(9);
    assertThat(metrics.filesRead.get()).as("%s", metrics).isEqualTo(1);
    assertThat(opened).as("data files opened").hasSize(1);
    if (format.equals("parquet")) {
      assertThat(metrics.rowGroupsSkipped.get()).as("%s", metrics).isPositive();
      assertThat(metrics.rowGroupsRead.get()).as("%s", metrics).isLessThan(3);
    }
    // Without a filter every file is read.
    opened.clear();
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(20_000);
    assertThat(opened).hasSize(10);
    table.close();
  }

  @Test
  void manifestsOfOtherPartitionsAreNotRead() throws Exception {
    FileStoreTable table =
        TestTables.catalog(dir)
            .createTable(
                new Identifier("db", "parts"),
                Schema.newBuilder()
                    .column("day", DataType.date())
                    .column("n", DataType.intType())
                    .partitionKeys("day")
                    .build());
    TableCommit commit = table.newCommit("u");
    for (int c = 0; c < 6; c++) {
      try (TableWrite write = table.newWrite("u")) {
        write.write(GenericRow.of(java.time.LocalDate.of(2024, 5, 1 + c), c));
        commit.commit(c + 1, write.prepareCommit());
      }
    }
    Predicate filter = PredicateParser.parse(table.schema().rowType(), "day = DATE '2024-05-04'");
    ScanMetrics metrics = new ScanMetrics();
    List<GenericRow> rows = read(table, filter, metrics);
    assertThat(rows).containsExactly(GenericRow.of(java.time.LocalDate.of(2024, 5, 4), 3));
    assertThat(metrics.manifestsSkipped.get()).as("%s", metrics).isEqualTo(5);
    assertThat(metrics.manifestsRead.get()).as("%s", metrics).isEqualTo(1);
    table.close();
  }

  @Test
  void aValueFilterNeverSkipsAFileWhoseKeysHaveOtherVersions() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of());
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of(1, "a"));
      write.write(GenericRow.of(2, "a"));
      commit.commit(1, write.prepareCommit());
      write.write(GenericRow.of(1, "b"));
      commit.commit(2, write.prepareCommit());
    }
    Predicate filter = PredicateParser.parse(table.schema().rowType(), "v = 'a'");
    // A naive rule would skip the newer file (its v is only 'b') and show key 1's old row.
    DataFileMeta newer =
        onlySplit(table).files().stream().filter(f -> f.rowCount() == 1).findAny().orElseThrow();
    assertThat(filter.mightMatch(stats(table, newer))).as("the naive rule skips it").isFalse();
    ScanMetrics metrics = new ScanMetrics();
    assertThat(read(table, filter, metrics)).containsExactly(GenericRow.of(2, "a"));
    assertThat(metrics.filesSkipped.get()).isZero();

    // A delete whose row holds no 'a' must not be skipped either: key 2 is gone.
    try (TableWrite write = table.newWrite("u")) {
      write.write(RowKind.DELETE, GenericRow.of(2, null));
      commit.commit(3, write.prepareCommit());
    }
    assertThat(read(table, filter, new ScanMetrics())).isEmpty();
    assertThat(
            read(
                table,
                PredicateParser.parse(table.schema().rowType(), "v = 'b'"),
                new ScanMetrics()))
        .containsExactly(GenericRow.of(1, "b"));

    // After a full compaction the one file overlaps nothing: a value filter skips it.
    try (TableCompactor compactor = table.newCompactor("c")) {
      compactor.compactOnce(true);
    }
    ScanMetrics compacted = new ScanMetrics();
    assertThat(read(table, filter, compacted)).isEmpty();
    assertThat(compacted.filesSkipped.get()).as("%s", compacted).isEqualTo(1);
    table.close();
  }

  @Test
  void aKeyFilterSkipsOverlappingFiles() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of());
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      for (int k = 1; k <= 10; k++) {
        write.write(GenericRow.of(k, "first " + k));
      }
      commit.commit(1, write.prepareCommit());
      for (int k = 5; k <= 15; k++) {
        write.write(GenericRow.of(k, "second " + k));
      }
      commit.commit(2, write.prepareCommit());
    }
    ScanMetrics metrics = new ScanMetrics();
    Predicate filter = PredicateParser.parse(table.schema().rowType(), "k = 12 OR k = 14");
    assertThat(read(table, filter, metrics))
        .containsExactly(GenericRow.of(12, "second 12"), GenericRow.of(14, "second 14"));
    assertThat(metrics.filesSkipped.get()).as("%s", metrics).isEqualTo(1);
    ScanMetrics both = new ScanMetrics();
    assertThat(read(table, PredicateParser.parse(table.schema().rowType(), "k = 7"), both))
        .containsExactly(GenericRow.of(7, "second 7"));
    assertThat(both.filesSkipped.get()).isZero();
    table.close();
  }

  private static Split onlySplit(FileStoreTable table) throws Exception {
    List<Split> splits = table.newScan().plan().splits();
    assertThat(splits).hasSize(1);
    return splits.get(0);
  }

  private static StatsView stats(FileStoreTable table, DataFileMeta file) {
    FieldStats[] fields = table.valueStatsCodec().decode(file.valueStats());
    return StatsView.of(file.rowCount(), fields);
  }
}
