package dev.lockstep.engine.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.operation.CompactionJob;
import dev.lockstep.engine.operation.PartitionOverwrite;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dedicated compaction job (partition filter, minor and full, continuous) and overwrites. */
class CompactionJobAndOverwriteTest {

  @TempDir Path dir;

  private FileStoreTable table;

  @BeforeEach
  void partitionedWriteOnlyTable() throws Exception {
    TestTables.catalog(dir)
        .createTable(
            new Identifier("db", "p"),
            Schema.newBuilder()
                .column("p", DataType.string())
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .partitionKeys("p")
                .primaryKey("p", "k")
                .option("write-only", "true")
                .option("num-sorted-run.compaction-trigger", "3")
                .option("snapshot.num-retained.min", "1000")
                .build());
    table = TestTables.catalog(dir).getTable(Identifier.parse("db.p"));
    var commit = table.newCommit("w");
    try (TableWrite write = table.newWrite("w")) {
      for (int b = 1; b <= 4; b++) {
        for (String p : List.of("a", "b")) {
          for (int k = 0; k < 5; k++) {
            write.write(GenericRow.of(p, k, p + b));
          }
        }
        commit.commit(b, write.prepareCommit());
      }
    }
  }

  private Map<String, Integer> filesPerPartition() throws Exception {
    Map<String, Integer> files = new TreeMap<>();
    for (var split : table.newScan().plan().splits()) {
      files.merge(split.partition(), split.files().size(), Integer::sum);
    }
    return files;
  }

  private Map<String, String> rows() throws Exception {
    Map<String, String> rows = new TreeMap<>();
    for (GenericRow r : table.newRead().readAll(table.newScan().plan())) {
      rows.put(r.get(0) + "/" + r.get(1), (String) r.get(2));
    }
    return rows;
  }

  @Test
  void compactsOnlyTheFilteredPartitionsMinorThenFull() throws Exception {
    Map<String, String> before = rows();
    assertThat(filesPerPartition()).containsEntry("p=a", 4).containsEntry("p=b", 4);
    try (CompactionJob minor =
        new CompactionJob(table, "job", p -> p.equals("p=a"), false, false)) {
      assertThat(minor.runOnce()).isPresent();
      assertThat(minor.runOnce()).as("nothing left to pick").isEmpty();
    }
    Map<String, Integer> afterMinor = filesPerPartition();
    assertThat(afterMinor.get("p=a")).isLessThan(4);
    assertThat(afterMinor.get("p=b")).isEqualTo(4);
    try (CompactionJob full =
        new CompactionJob(
            table, "job", PartitionOverwrite.pathFilter(table, Map.of("p", "b")), true, false)) {
      assertThat(full.runOnce()).isPresent();
    }
    assertThat(filesPerPartition()).containsEntry("p=b", 1);
    assertThat(rows()).isEqualTo(before);
    assertThat(table.snapshotManager().latest().orElseThrow().commitKind())
        .isEqualTo(CommitKind.COMPACT);
  }

  @Test
  void runsContinuouslyAndExpiresAfterEachRound() throws Exception {
    FileStoreTable shortHistory =
        table.copyWithOptions(
            Map.of("snapshot.num-retained.min", "1", "snapshot.time-retained", "0 s"));
    try (CompactionJob job = new CompactionJob(shortHistory, "job", p -> true, true, true)) {
      // Runs until a third round starts (the first compacts, later ones find nothing to do); the
      // deadline only bounds a hang, it is not what the test measures.
      long deadline = System.nanoTime() + Duration.ofMillis(Writers.scaled(60_000)).toNanos();
      long commits =
          job.runContinuously(
              Duration.ofMillis(20), () -> job.rounds() < 3 && System.nanoTime() < deadline);
      assertThat(commits).isEqualTo(1);
      assertThat(job.rounds()).isGreaterThan(1);
    }
    assertThat(table.snapshotManager().log().listIds()).hasSize(1);
    assertThat(rows()).hasSize(10).containsEntry("a/0", "a4");
  }

  @Test
  void staticOverwriteReplacesTheMatchingPartitionEvenWithNoRows() throws Exception {
    FileStoreTable writable = table.copyWithOptions(Map.of("write-only", "false"));
    new PartitionOverwrite(writable, Map.of("p", "a"))
        .overwrite("o", 1, List.of(GenericRow.of("a", 9, "new")));
    assertThat(rows()).containsEntry("a/9", "new").doesNotContainKey("a/0").containsKey("b/0");
    new PartitionOverwrite(writable, Map.of("p", "b")).overwrite("o", 2, List.of());
    assertThat(rows()).containsOnlyKeys("a/9");
    assertThat(table.snapshotManager().latest().orElseThrow().commitKind())
        .isEqualTo(CommitKind.OVERWRITE);
  }

  @Test
  void dynamicOverwriteReplacesOnlyThePartitionsWritten() throws Exception {
    new PartitionOverwrite(table, null)
        .overwrite("o", 1, List.of(GenericRow.of("c", 1, "c"), GenericRow.of("b", 1, "b!")));
    assertThat(rows())
        .containsEntry("c/1", "c")
        .containsEntry("b/1", "b!")
        .doesNotContainKey("b/0")
        .containsEntry("a/0", "a4")
        .hasSize(7);
  }

  @Test
  void aRowOutsideTheStaticPartitionIsRefusedBeforeWriting() throws Exception {
    long latest = table.snapshotManager().latestId().getAsLong();
    assertThatThrownBy(
            () ->
                new PartitionOverwrite(table, Map.of("p", "a"))
                    .overwrite("o", 1, List.of(GenericRow.of("b", 1, "x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("outside the partition");
    assertThatThrownBy(() -> new PartitionOverwrite(table, Map.of("k", "1")))
        .hasMessageContaining("not a partition column");
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(latest);
  }
}
