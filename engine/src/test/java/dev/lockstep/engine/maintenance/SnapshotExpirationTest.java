package dev.lockstep.engine.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshot expiration, one process, no concurrency: what is kept, what is deleted, and when. */
class SnapshotExpirationTest {

  @TempDir Path dir;

  private FileStoreTable table(Map<String, String> options) throws Exception {
    TestTables.keyValueTable(dir, options);
    return TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
  }

  /**
   * Commits {@code n} batches of one writer that overwrite the same 20 keys, then full-compacts.
   */
  static void commitBatches(FileStoreTable table, int n, boolean compact) throws Exception {
    var commit = table.newCommit("w");
    long first = table.snapshotManager().latestId().orElse(0) + 1;
    try (TableWrite write = table.newWrite("w")) {
      for (int b = 0; b < n; b++) {
        for (int k = 0; k < 20; k++) {
          write.write(GenericRow.of(k, "v" + (first + b)));
        }
        if (compact) {
          write.compact(true);
        }
        commit.commit(first + b, write.prepareCommit());
      }
    }
  }

  private long dataFiles() throws Exception {
    try (Stream<Path> files = Files.walk(dir.resolve("db.db/kv/bucket-0"))) {
      return files.filter(p -> p.getFileName().toString().startsWith("data-")).count();
    }
  }

  @Test
  void keepsTheMinimumAndDeletesOnlyFilesNoRetainedSnapshotReferences() throws Exception {
    FileStoreTable table = table(Map.of("snapshot.num-retained.min", "1000"));
    commitBatches(table, 12, true);
    long latest = table.snapshotManager().latestId().getAsLong();
    Map<Integer, String> before = Writers.read(table, -1);
    long filesBefore = dataFiles();

    ExpireReport report =
        new SnapshotExpiration(
                table, new MaintenanceOptions(3, Integer.MAX_VALUE, Duration.ZERO, 1000))
            .expire();

    assertThat(report.earliestAfter()).isEqualTo(latest - 2);
    assertThat(report.expiredSnapshots()).isEqualTo(latest - 3);
    assertThat(table.snapshotManager().earliestId().getAsLong()).isEqualTo(latest - 2);
    assertThat(table.snapshotManager().log().listIds()).hasSize(3);
    assertThat(report.deletedDataFiles()).isNotEmpty();
    assertThat(dataFiles()).isEqualTo(filesBefore - report.deletedDataFiles().size());
    assertThat(report.deletedManifests()).isNotEmpty();
    assertThat(Writers.missingFilesOfRetainedSnapshots(table)).isEmpty();
    for (long id = latest - 2; id <= latest; id++) {
      assertThat(Writers.read(table, id)).hasSize(20);
    }
    assertThat(Writers.read(table, -1)).isEqualTo(before);
    assertThat(Files.readString(dir.resolve("db.db/kv/snapshot/EARLIEST")).trim())
        .isEqualTo(Long.toString(latest - 2));
  }

  @Test
  void timeRetainedCountsFromWhenTheSnapshotStoppedBeingTheLatest() throws Exception {
    FileStoreTable table = table(Map.of("snapshot.num-retained.min", "1000"));
    commitBatches(table, 5, false);
    // Every successor is younger than an hour: nothing expires with the defaults.
    MaintenanceOptions hour =
        new MaintenanceOptions(1, Integer.MAX_VALUE, Duration.ofHours(1), 100);
    assertThat(new SnapshotExpiration(table, hour).expire().expiredSnapshots()).isZero();
    // The maximum overrides time; the limit caps one run.
    ExpireReport capped = new SnapshotExpiration(table, hour.with(null, 2, null, 2)).expire();
    assertThat(capped.expiredSnapshots()).isEqualTo(2);
    ExpireReport rest = new SnapshotExpiration(table, hour.with(null, 2, null, 2)).expire();
    assertThat(rest.firstExpired()).isEqualTo(3);
    assertThat(table.snapshotManager().log().listIds()).containsExactly(4L, 5L);
  }

  @Test
  void dryRunReportsAndDeletesNothing() throws Exception {
    FileStoreTable table = table(Map.of("snapshot.num-retained.min", "1000"));
    commitBatches(table, 6, true);
    long files = dataFiles();
    long latest = table.snapshotManager().latestId().getAsLong();
    ExpireReport report =
        new SnapshotExpiration(
                table, new MaintenanceOptions(2, Integer.MAX_VALUE, Duration.ZERO, 100))
            .dryRun();
    assertThat(report.expiredSnapshots()).isEqualTo(latest - 2);
    assertThat(report.deletedDataFiles()).isNotEmpty();
    assertThat(report.deletedBytes()).isPositive();
    assertThat(dataFiles()).isEqualTo(files);
    assertThat(table.snapshotManager().log().listIds()).hasSize((int) latest);
  }

  /**
   * The report's byte count is the size on disk of exactly the data files and manifests it names,
   * in a dry run and in the run that then deletes them.
   */
  @Test
  void theReportedBytesAreTheSizesOfTheFilesItNames() throws Exception {
    FileStoreTable table = table(Map.of("snapshot.num-retained.min", "1000"));
    commitBatches(table, 6, true);
    MaintenanceOptions keep2 = new MaintenanceOptions(2, Integer.MAX_VALUE, Duration.ZERO, 100);
    ExpireReport dry = new SnapshotExpiration(table, keep2).dryRun();
    long onDisk = onDiskBytes(dry);
    assertThat(dry.deletedManifests()).anyMatch(m -> m.startsWith("manifest-list-"));
    assertThat(dry.deletedBytes()).isEqualTo(onDisk).isPositive();

    ExpireReport run = new SnapshotExpiration(table, keep2).expire();
    assertThat(run.deletedDataFiles()).containsExactlyInAnyOrderElementsOf(dry.deletedDataFiles());
    assertThat(run.deletedManifests()).containsExactlyInAnyOrderElementsOf(dry.deletedManifests());
    assertThat(run.deletedBytes()).isEqualTo(onDisk);
    for (String f : run.deletedDataFiles()) {
      assertThat(dir.resolve("db.db/kv").resolve(f)).doesNotExist();
    }
  }

  /**
   * With dynamic buckets the expired snapshots' index manifests and index files are among the files
   * it names, and their sizes on disk are in the byte count.
   */
  @Test
  void theReportedBytesCountTheIndexManifestsOfADynamicBucketTable() throws Exception {
    FileStoreTable table = table(Map.of("bucket", "-1", "snapshot.num-retained.min", "1000"));
    for (int c = 1; c <= 6; c++) {
      try (TableWrite write = table.newWrite("w")) {
        write.write(GenericRow.of(c, "v" + c)); // a new key: a new index manifest each time
        table.newCommit("w").commit(c, write.prepareCommit());
      }
    }
    MaintenanceOptions keep2 = new MaintenanceOptions(2, Integer.MAX_VALUE, Duration.ZERO, 100);
    ExpireReport dry = new SnapshotExpiration(table, keep2).dryRun();
    assertThat(dry.deletedManifests()).anyMatch(m -> m.startsWith("index-manifest-"));
    assertThat(dry.deletedBytes()).isEqualTo(onDiskBytes(dry));
  }

  /** The sizes on disk of the data files and manifests {@code report} names, before deletion. */
  private long onDiskBytes(ExpireReport report) throws IOException {
    long bytes = 0;
    for (String f : report.deletedDataFiles()) {
      bytes += Files.size(dir.resolve("db.db/kv").resolve(f));
    }
    for (String m : report.deletedManifests()) {
      bytes += Files.size(dir.resolve("db.db/kv/manifest").resolve(m));
    }
    return bytes;
  }

  @Test
  void filesOfUncommittedMessagesAreNeverDeleted() throws Exception {
    FileStoreTable table = table(Map.of("snapshot.num-retained.min", "1000"));
    commitBatches(table, 3, true);
    List<CommitMessage> inFlight;
    TableWrite pending = table.newWrite("slow");
    for (int k = 100; k < 110; k++) {
      pending.write(GenericRow.of(k, "pending"));
    }
    inFlight = pending.prepareCommit();
    commitBatches(table, 6, true);
    new SnapshotExpiration(table, new MaintenanceOptions(1, 1, Duration.ZERO, 100)).expire();
    assertThat(table.snapshotManager().log().listIds()).hasSize(1);

    table.newCommit("slow").commit(1, inFlight);
    pending.close();
    Map<Integer, String> rows = Writers.read(table, -1);
    assertThat(rows).hasSize(30).containsEntry(105, "pending");
  }

  @Test
  void aReaderOfAnExpiredSnapshotMeetsFileNotFoundAndPlansAgain() throws Exception {
    FileStoreTable table = table(Map.of("snapshot.num-retained.min", "1000"));
    commitBatches(table, 4, true);
    var stalePlan = table.newScan().withSnapshot(1).plan();
    commitBatches(table, 4, true);
    Map<Integer, String> latest = Writers.read(table, -1);
    ExpireReport report =
        new SnapshotExpiration(
                table, new MaintenanceOptions(1, Integer.MAX_VALUE, Duration.ZERO, 100))
            .expire();
    assertThat(report.earliestAfter()).isEqualTo(table.snapshotManager().latestId().getAsLong());

    assertThatThrownBy(() -> table.newRead().readAll(stalePlan))
        .isInstanceOf(FileNotFoundException.class);
    FileStoreTable otherProcess = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
    assertThatThrownBy(() -> otherProcess.newScan().withSnapshot(1).plan())
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining("Snapshot 1");
    assertThat(Writers.read(otherProcess, -1)).isEqualTo(latest).hasSize(20);
  }

  @Test
  void writersThatAreNotWriteOnlyExpireAfterEachCommit() throws Exception {
    // No background compaction, so that each batch is exactly one snapshot.
    FileStoreTable table =
        table(
            Map.of(
                "snapshot.num-retained.min",
                "2",
                "snapshot.time-to-live",
                "0 s",
                "num-sorted-run.compaction-trigger",
                "100"));
    commitBatches(table, 6, false);
    assertThat(table.snapshotManager().log().listIds()).containsExactly(5L, 6L);

    FileStoreTable writeOnly = table.copyWithOptions(Map.of("write-only", "true"));
    commitBatches(writeOnly, 3, false);
    assertThat(writeOnly.snapshotManager().log().listIds()).containsExactly(5L, 6L, 7L, 8L, 9L);
  }

  /** Built from a table alone, it expires by the table's options (the Spark procedure's base). */
  @Test
  void itsOptionsAreTheTablesOwn() throws Exception {
    FileStoreTable table =
        table(
            Map.of(
                "snapshot.num-retained.min", "7",
                "snapshot.num-retained.max", "9",
                "snapshot.time-retained", "3 h"));
    MaintenanceOptions options = new SnapshotExpiration(table).options();
    assertThat(options.numRetainedMin()).isEqualTo(7);
    assertThat(options.numRetainedMax()).isEqualTo(9);
    assertThat(options.timeRetained()).isEqualTo(Duration.ofHours(3));
  }

  @Test
  void badOptionsNameTheKeyAndTheFix() {
    assertThatThrownBy(() -> MaintenanceOptions.from(Map.of("snapshot.num-retained.min", "0")))
        .hasMessageContaining("snapshot.num-retained.min")
        .hasMessageContaining("at least 1");
    assertThatThrownBy(
            () ->
                MaintenanceOptions.from(
                    Map.of("snapshot.num-retained.min", "5", "snapshot.num-retained.max", "3")))
        .hasMessageContaining("snapshot.num-retained.max");
    assertThatThrownBy(() -> MaintenanceOptions.from(Map.of("snapshot.time-retained", "soon")))
        .hasMessageContaining("snapshot.time-retained");
    assertThat(MaintenanceOptions.from(Map.of("snapshot.time-to-live", "5 min")).timeRetained())
        .isEqualTo(Duration.ofMinutes(5));
    assertThat(MaintenanceOptions.from(Map.of()))
        .isEqualTo(new MaintenanceOptions(10, Integer.MAX_VALUE, Duration.ofHours(1), 10));
  }
}
