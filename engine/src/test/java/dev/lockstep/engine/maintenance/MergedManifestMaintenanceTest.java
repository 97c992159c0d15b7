package dev.lockstep.engine.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expiration and orphan removal on a table whose manifests are merged all the time (minimum count
 * 2, target and full-compaction threshold 1 kb: minor merges and full compactions nearly every time
 * a base list is written, so merged manifests are shared by many snapshots, and manifests of
 * expired snapshots live on in retained ones): a manifest a retained snapshot names is never
 * deleted, every retained snapshot reads as it did, and orphan removal with no age guard finds
 * nothing referenced.
 */
class MergedManifestMaintenanceTest {

  @TempDir Path dir;

  private FileStoreTable table() throws Exception {
    TestTables.keyValueTable(
        dir,
        Map.of(
            "manifest.merge-min-count", "2",
            "manifest.target-file-size", "1 kb",
            "manifest.full-compaction-threshold-size", "1 kb",
            "snapshot.num-retained.min", "1000"));
    return TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
  }

  /** Every manifest and list the retained snapshots name, with whether it exists. */
  private Set<String> missingManifests(FileStoreTable table) throws Exception {
    Set<String> missing = new HashSet<>();
    long earliest = table.snapshotManager().earliestId().orElseThrow();
    long latest = table.snapshotManager().latestId().orElseThrow();
    Path manifests = dir.resolve("db.db/kv/manifest");
    for (long id = earliest; id <= latest; id++) {
      Snapshot s = table.snapshotManager().get(id);
      List<String> lists = new ArrayList<>();
      lists.add(s.baseManifestList());
      s.priorDeltas().forEach(p -> lists.add(p.deltaManifestList()));
      lists.add(s.deltaManifestList());
      for (String list : lists) {
        if (!Files.exists(manifests.resolve(list))) {
          missing.add("snapshot " + id + ": list " + list);
          continue;
        }
        for (ManifestFileMeta m : table.manifestList().read(list)) {
          if (!Files.exists(manifests.resolve(m.fileName()))) {
            missing.add("snapshot " + id + ": manifest " + m.fileName());
          }
        }
      }
    }
    return missing;
  }

  @Test
  void expirationAndOrphanRemovalKeepEveryManifestARetainedSnapshotNames() throws Exception {
    FileStoreTable table = table();
    SnapshotExpirationTest.commitBatches(table, 40, true);
    long latest = table.snapshotManager().latestId().orElseThrow();
    Map<Long, Map<Integer, String>> contents = new HashMap<>();
    for (long id = 1; id <= latest; id++) {
      contents.put(id, Writers.read(table, id));
    }
    // Merged manifests exist, and are shared by snapshots.
    Set<String> merged = new HashSet<>();
    for (long id = 1; id <= latest; id++) {
      for (ManifestFileMeta m : table.store().manifests(table.snapshotManager().get(id))) {
        if (m.snapshotId() < 0) {
          merged.add(m.fileName());
        }
      }
    }
    assertThat(merged).isNotEmpty();

    for (int retained : new int[] {latest > 60 ? 60 : (int) latest / 2, 20, 7, 3, 1}) {
      FileStoreTable fresh = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
      new SnapshotExpiration(fresh, new MaintenanceOptions(retained, retained, Duration.ZERO, 1000))
          .expire();
      assertThat(missingManifests(fresh)).as("after keeping %d snapshots", retained).isEmpty();
      assertThat(Writers.missingFilesOfRetainedSnapshots(fresh)).isEmpty();
      long earliest = fresh.snapshotManager().earliestId().orElseThrow();
      assertThat(latest - earliest + 1).isEqualTo(retained);
      for (long id = earliest; id <= latest; id++) {
        assertThat(Writers.read(fresh, id)).as("snapshot %d", id).isEqualTo(contents.get(id));
      }
      OrphanReport report = new OrphanFilesCleaner(fresh, Duration.ZERO, false).clean();
      assertThat(missingManifests(fresh))
          .as("after orphan removal, %d files removed: %s", report.removed().size(), report)
          .isEmpty();
      assertThat(Writers.read(fresh, latest)).isEqualTo(contents.get(latest));
    }
  }
}
