package dev.lockstep.engine.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.snapshot.SkippedDamage;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When snapshot expiration stops and expires nothing, it says so in a report (never {@code null},
 * never an exception) and deletes no data file or manifest: a table without snapshots, a snapshot
 * missing inside the range, a snapshot that another expiration removed while this one deletes, and
 * a manifest missing under snapshots that are all there (then named as missing).
 */
class SnapshotExpirationStopsTest {

  private static final MaintenanceOptions KEEP_ONE =
      new MaintenanceOptions(1, 1, Duration.ZERO, 100);

  @TempDir Path dir;

  /**
   * Five commits of the same 20 keys, each followed by a full compaction (its own snapshot, which
   * deletes the files before it): 9 or 10 snapshots.
   */
  private FileStoreTable table() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(dir, Map.of("snapshot.num-retained.min", "1000"));
    SnapshotExpirationTest.commitBatches(table, 5, true);
    return reopen(new LocalFileIO());
  }

  private FileStoreTable reopen(FileIO io) throws IOException {
    return new FileSystemCatalog(io, dev.lockstep.fs.Path.of(dir.toString()), Map.of())
        .getTable(Identifier.parse("db.kv"));
  }

  private Path tableDir() {
    return dir.resolve("db.db/kv");
  }

  /** Every data file and manifest of the table, relative to its directory. */
  private Set<String> files() throws IOException {
    try (Stream<Path> files = Files.walk(tableDir())) {
      return files
          .filter(Files::isRegularFile)
          .map(p -> tableDir().relativize(p).toString())
          .filter(f -> f.startsWith("bucket-") || f.startsWith("manifest/"))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static void assertNothingExpired(ExpireReport report, long earliestAfter) {
    assertThat(report).isNotNull();
    assertThat(report.expiredSnapshots()).isZero();
    assertThat(report.earliestAfter()).isEqualTo(earliestAfter);
    assertThat(report.deletedDataFiles()).isEmpty();
    assertThat(report.deletedManifests()).isEmpty();
    assertThat(report.deletedBytes()).isZero();
  }

  @Test
  void aTableWithoutSnapshotsHasNothingToExpire() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of());
    assertNothingExpired(new SnapshotExpiration(table, KEEP_ONE).expire(), 0);
    ExpireReport dry = new SnapshotExpiration(table, KEEP_ONE).dryRun();
    assertNothingExpired(dry, 0);
    assertThat(dry.dryRun()).isTrue();
  }

  /** A snapshot missing inside the range (damage): nothing expires, the rest stays readable. */
  @Test
  void aSnapshotMissingInsideTheRangeStopsIt() throws Exception {
    FileStoreTable table = table();
    Files.delete(tableDir().resolve("snapshot/snapshot-3"));
    Set<String> before = files();
    var ids = table.snapshotManager().log().listIds();

    ExpireReport report = new SnapshotExpiration(table, KEEP_ONE).expire();

    assertNothingExpired(report, 1);
    assertThat(table.snapshotManager().log().listIds()).isEqualTo(ids).doesNotContain(3L);
    assertThat(files()).isEqualTo(before);
    assertThat(Writers.read(table, -1)).hasSize(20);
  }

  /**
   * Another expiration runs ahead of this one: as this one deletes snapshot 1, the other has
   * already removed snapshot 2 (ascending, as every expiration deletes). This one stops there and
   * leaves the data files and manifests to the other.
   */
  @Test
  void aSnapshotAnotherExpirationRemovedMeanwhileStopsItBeforeAnyFileIsDeleted() throws Exception {
    table();
    Path snapshot2 = tableDir().resolve("snapshot/snapshot-2");
    FileIO racing =
        new CapabilityHidingFileIO(new LocalFileIO()) {
          @Override
          public boolean delete(dev.lockstep.fs.Path path, boolean recursive) throws IOException {
            if (path.toString().endsWith("snapshot/snapshot-1")) {
              Files.deleteIfExists(snapshot2); // the other expiration, one snapshot ahead
            }
            return super.delete(path, recursive);
          }
        };
    FileStoreTable table = reopen(racing);
    Set<String> before = files();
    var ids = table.snapshotManager().log().listIds();

    ExpireReport report = new SnapshotExpiration(table, KEEP_ONE).expire();

    assertNothingExpired(report, 3);
    assertThat(table.snapshotManager().log().listIds()).isEqualTo(ids.subList(2, ids.size()));
    assertThat(files()).isEqualTo(before);
    assertThat(Writers.read(table, -1)).hasSize(20);
  }

  /**
   * A manifest of the range missing while every snapshot is there as read: lost, not expired by
   * someone else. Nothing expires, and the manifest is named as missing in the table's skipped
   * damage (what `table check` and the CLI report).
   */
  @Test
  void aManifestMissingUnderSnapshotsThatAreThereIsNamedAndNothingExpires() throws Exception {
    FileStoreTable table = table();
    Snapshot first = table.snapshotManager().get(1);
    String manifest = table.manifestList().read(first.deltaManifestList()).get(0).fileName();
    Path lost = tableDir().resolve("manifest").resolve(manifest);
    Files.delete(lost);
    FileStoreTable expiring = reopen(new LocalFileIO());
    Set<String> before = files();
    var ids = expiring.snapshotManager().log().listIds();

    ExpireReport report = new SnapshotExpiration(expiring, KEEP_ONE).expire();

    assertNothingExpired(report, 1);
    assertThat(expiring.snapshotManager().log().listIds()).isEqualTo(ids);
    assertThat(files()).isEqualTo(before);
    assertThat(expiring.snapshotManager().skippedDamage().entries())
        .containsExactly(new SkippedDamage.Entry("manifest", lost.toString(), "missing"));
  }
}
