package dev.lockstep.engine.commit;

import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.List;

/**
 * The changelog manifest list of one commit: one manifest of ADD entries (the changelog files) and
 * the list naming it, written once before the commit loop and named by the snapshot that lands;
 * {@code manifest} is {@code null} for an empty changelog (a list naming no manifest).
 */
record ChangelogList(String name, String manifest, long records) {

  /**
   * Writes the list of {@code files}: an empty list when there are none (the snapshot then says
   * "this commit's changelog is empty", which a stream tells from a snapshot without changelog).
   */
  static ChangelogList write(TableStore table, List<ManifestEntry> files) throws IOException {
    if (files.isEmpty()) {
      return new ChangelogList(table.manifestList().write(List.of()), null, 0);
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
    if (manifest != null) {
      table.manifestFile().deleteQuietly(manifest);
    }
  }
}
