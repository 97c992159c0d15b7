package dev.lockstep.engine.commit;

import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.List;

/**
 * The changelog manifest list of one commit: one manifest of ADD entries (the changelog files) and
 * the list naming it, written once before the commit loop and named by the snapshot that lands.
 */
record ChangelogList(String name, String manifest, long records) {

  /** Writes the list of {@code files}; {@code null} when there are none. */
  static ChangelogList write(TableStore table, List<ManifestEntry> files) throws IOException {
    if (files.isEmpty()) {
      return null;
    }
    ManifestFileMeta manifest = table.manifestFile().write(files);
    String list;
    try {
      list = table.manifestList().write(List.of(manifest));
    } catch (IOException | RuntimeException e) {
      table.manifestFile().deleteQuietly(manifest.fileName());
      throw e;
    }
    long records = files.stream().mapToLong(e -> e.file().rowCount()).sum();
    return new ChangelogList(list, manifest.fileName(), records);
  }

  /** Deletes the list and its manifest (a commit that published neither). */
  void deleteQuietly(TableStore table) {
    table.manifestList().deleteQuietly(name);
    table.manifestFile().deleteQuietly(manifest);
  }
}
