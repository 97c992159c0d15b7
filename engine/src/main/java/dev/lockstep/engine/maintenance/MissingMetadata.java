package dev.lockstep.engine.maintenance;

import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.snapshot.DamagedFileException;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which manifest list or manifest of a snapshot is missing, asked only after a read of the
 * snapshot's metadata met a {@code FileNotFoundException} while the snapshot itself is still there:
 * the answer names the file for {@link dev.lockstep.engine.snapshot.SkippedDamage}.
 */
final class MissingMetadata {

  private MissingMetadata() {}

  /** Notes the first missing list or manifest of {@code snapshots}; false when all are there. */
  static boolean note(TableStore table, List<Snapshot> snapshots) throws IOException {
    Set<String> lists = new LinkedHashSet<>();
    for (Snapshot s : snapshots) {
      lists.add(s.baseManifestList());
      s.priorDeltas().forEach(p -> lists.add(p.deltaManifestList()));
      lists.add(s.deltaManifestList());
      if (s.changelogManifestList() != null) {
        lists.add(s.changelogManifestList());
      }
    }
    Path dir = table.path().child("manifest");
    for (String list : lists) {
      if (!table.fileIO().exists(dir.child(list))) {
        table
            .snapshotManager()
            .skippedDamage()
            .noteMissing("manifest list", dir.child(list).toString());
        return true;
      }
    }
    for (String list : lists) {
      List<ManifestFileMeta> manifests;
      try {
        manifests = table.manifestList().read(list);
      } catch (DamagedFileException damaged) {
        continue; // damaged, not missing: whoever reads it names it
      }
      for (ManifestFileMeta m : manifests) {
        Path manifest = table.manifestFile().path(m.fileName());
        if (!table.fileIO().exists(manifest)) {
          table.snapshotManager().skippedDamage().noteMissing("manifest", manifest.toString());
          return true;
        }
      }
    }
    return false;
  }
}
