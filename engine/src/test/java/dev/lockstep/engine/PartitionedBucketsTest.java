package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partitioned primary-key table with four buckets: routing, merged reads, filters, compaction.
 */
class PartitionedBucketsTest {

  @TempDir Path dir;

  @Test
  void keysSpreadOverBucketsAndReadBackMergedPerPartition() throws Exception {
    FileStoreTable table =
        TestTables.catalog(dir)
            .createTable(
                new Identifier("shop", "orders"),
                Schema.newBuilder()
                    .column("day", DataType.date())
                    .column("id", DataType.bigint())
                    .column("amount", DataType.decimal(12, 2))
                    .column("note", DataType.string())
                    .partitionKeys("day")
                    .primaryKey("day", "id")
                    .option("bucket", "4")
                    .build());
    LocalDate d1 = LocalDate.of(2024, 5, 1);
    LocalDate d2 = LocalDate.of(2024, 5, 2);
    Map<String, BigDecimal> expected = new HashMap<>();
    TableCommit commit = table.newCommit("job");
    try (TableWrite write = table.newWrite("job")) {
      for (long batch = 1; batch <= 4; batch++) {
        for (long id = 0; id < 200; id++) {
          LocalDate day = id % 2 == 0 ? d1 : d2;
          BigDecimal amount = BigDecimal.valueOf(batch * 1000 + id, 2);
          write.write(GenericRow.of(day, id, amount, "b" + batch));
          expected.put(day + "/" + id, amount);
        }
        commit.commit(batch, write.prepareCommit());
      }
    }
    TableScan.Plan plan = table.newScan().plan();
    assertThat(plan.splits()).hasSize(8);
    Set<String> partitions =
        plan.splits().stream().map(Split::partition).collect(Collectors.toSet());
    assertThat(partitions).containsExactlyInAnyOrder("day=2024-05-01", "day=2024-05-02");
    assertThat(read(table, null)).isEqualTo(expected);

    try (TableCompactor compactor = table.newCompactor("compactor")) {
      assertThat(compactor.compactOnce(true).orElseThrow().compactSnapshotId()).isPositive();
    }
    assertThat(table.newScan().plan().splits()).allSatisfy(s -> assertThat(s.files()).hasSize(1));
    assertThat(read(table, null)).isEqualTo(expected);

    Map<String, BigDecimal> day1 = read(table, d1);
    assertThat(day1).hasSize(100).allSatisfy((k, v) -> assertThat(k).startsWith("2024-05-01"));
    List<GenericRow> projected =
        table
            .newRead()
            .withProjection("note", "id")
            .readAll(table.newScan().withPartition(Map.of("day", d2)).plan());
    assertThat(projected).hasSize(100).allSatisfy(r -> assertThat(r.get(0)).isEqualTo("b4"));
  }

  private static Map<String, BigDecimal> read(FileStoreTable table, LocalDate day)
      throws Exception {
    TableScan scan = table.newScan();
    if (day != null) {
      scan.withPartition(Map.of("day", day));
    }
    Map<String, BigDecimal> rows = new HashMap<>();
    for (GenericRow r : table.newRead().readAll(scan.plan())) {
      assertThat(rows.put(r.get(0) + "/" + r.get(1), (BigDecimal) r.get(2))).isNull();
    }
    return rows;
  }
}
