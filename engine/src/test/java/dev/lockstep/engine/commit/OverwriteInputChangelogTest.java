package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Change;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An OVERWRITE of a table with {@code changelog-producer = input} (engine/README.md, "Overwrites
 * and changelog files"): the messages' changelog files are not committed (as in Paimon 1.3, which
 * ignores them with a warning); the stream reads the overwrite from its data files ({@code -D} of
 * every replaced row, then the new rows), and the changelog files are deleted once the overwrite
 * landed, so that no file is left unreferenced. Real local store, dynamic and fixed buckets.
 */
class OverwriteInputChangelogTest {

  @TempDir java.nio.file.Path dir;

  private static List<String> unreferenced(FileStoreTable table) throws Exception {
    // A guard of 0 still keeps a file written in this very millisecond.
    Thread.sleep(5);
    OrphanReport report = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
    return report.removed().stream().map(OrphanReport.RemovedFile::path).toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "2"})
  void theOverwritesChangelogFilesAreDeletedAndTheStreamReadsItsDataFiles(String bucket)
      throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(dir, Map.of("bucket", bucket, "changelog-producer", "input"));
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of(1, "a"));
      write.write(GenericRow.of(2, "a"));
      table.newCommit("w").commit(1, write.prepareCommit());
    }
    List<CommitMessage> messages;
    try (TableWrite write = table.newWrite("backfill")) {
      write.write(GenericRow.of(2, "b"));
      write.write(GenericRow.of(3, "b"));
      messages = write.prepareCommit();
    }
    List<DataFileMeta> changelog = new ArrayList<>();
    messages.forEach(m -> changelog.addAll(m.changelogFiles()));
    assertThat(changelog).as("changelog-producer input writes changelog files").isNotEmpty();

    table.newCommit("backfill").overwrite(1, null, messages);

    Snapshot overwrite = table.snapshotManager().latest().orElseThrow();
    assertThat(overwrite.commitKind()).isEqualTo(CommitKind.OVERWRITE);
    for (CommitMessage m : messages) {
      for (DataFileMeta f : m.changelogFiles()) {
        assertThat(
                table
                    .fileIO()
                    .exists(table.bucketPath(m.partition(), m.bucket()).child(f.fileName())))
            .as("changelog file %s of the overwrite", f.fileName())
            .isFalse();
      }
    }
    assertThat(unreferenced(table)).isEmpty();
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(2, "b", 3, "b"));

    StreamTableScan stream =
        table
            .copyWithOptions(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "1"))
            .newStreamScan();
    List<Changes> all = new ArrayList<>();
    for (Optional<Changes> c = stream.next(); c.isPresent(); c = stream.next()) {
      all.add(c.get());
    }
    assertThat(all)
        .extracting(Changes::commitKind)
        .containsExactly(CommitKind.APPEND, CommitKind.OVERWRITE);
    assertThat(all.get(1).rows())
        .containsExactlyInAnyOrder(
            new Change(RowKind.DELETE, GenericRow.of(1, "a")),
            new Change(RowKind.DELETE, GenericRow.of(2, "a")),
            new Change(RowKind.INSERT, GenericRow.of(2, "b")),
            new Change(RowKind.INSERT, GenericRow.of(3, "b")));
  }

  /**
   * A dynamic overwrite whose writer also compacted (here {@code compact(true)}, which compacts
   * every bucket of the table): the overwrite replaces only the partitions the messages add data to
   * (as Paimon's dynamic partition overwrite), not a partition a message only compacted, and the
   * compactions' outputs, never committed by an OVERWRITE, are deleted.
   */
  @org.junit.jupiter.api.Test
  void compactionsInTheMessagesNeitherReplaceTheirPartitionNorLeaveFilesBehind() throws Exception {
    dev.lockstep.engine.catalog.FileSystemCatalog catalog = TestTables.catalog(dir);
    dev.lockstep.engine.catalog.Identifier id =
        new dev.lockstep.engine.catalog.Identifier("db", "p");
    catalog.createTable(
        id,
        dev.lockstep.engine.schema.Schema.newBuilder()
            .column("dt", dev.lockstep.engine.types.DataType.string())
            .column("k", dev.lockstep.engine.types.DataType.intType())
            .column("v", dev.lockstep.engine.types.DataType.string())
            .partitionKeys("dt")
            .primaryKey("dt", "k")
            .option("bucket", "1")
            .build());
    FileStoreTable table = catalog.getTable(id);
    for (long commit = 1; commit <= 2; commit++) {
      try (TableWrite write = table.newWrite("w")) {
        for (String dt : List.of("a", "b")) {
          write.write(GenericRow.of(dt, (int) commit, "old"));
        }
        table.newCommit("w").commit(commit, write.prepareCommit());
      }
    }
    List<CommitMessage> messages;
    try (TableWrite write = table.newWrite("backfill")) {
      write.write(GenericRow.of("a", 9, "new"));
      write.compact(true);
      messages = write.prepareCommit();
    }
    assertThat(messages)
        .filteredOn(m -> m.partition().equals("dt=b"))
        .singleElement()
        .satisfies(m -> assertThat(m.newFiles()).isEmpty())
        .satisfies(m -> assertThat(m.compactAfter()).isNotEmpty());

    table.newCommit("backfill").overwrite(1, null, messages);

    List<String> rows = new ArrayList<>();
    for (GenericRow r : table.newRead().readAll(table.newScan().plan())) {
      rows.add(r.get(0) + "/" + r.get(1) + "/" + r.get(2));
    }
    assertThat(rows).containsExactlyInAnyOrder("a/9/new", "b/1/old", "b/2/old");
    assertThat(unreferenced(table)).isEmpty();
  }
}
