package dev.lockstep.engine.scan;

import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A committer's copy of the live files of the snapshot it last built on, by partition, moved
 * forward in memory: the file set of snapshot N is that of N - 1 with N's delta applied (every
 * snapshot is built on its parent, whatever its base and prior lists), so moving from the cached
 * snapshot to a newer one reads only the deltas in between (their manifests are cached by name). A
 * reload from the full manifests happens on the first use, after more than {@value #MAX_STEPS}
 * snapshots, when a snapshot in between is gone (expired) or is not linked to the one before it.
 * Not thread-safe (one per {@code TableCommit}).
 */
public final class LiveFileCache {

  static final int MAX_STEPS = 100;

  private final TableStore table;
  private final FileStoreScan scan;
  private Snapshot at;
  private Map<String, Map<ManifestEntry.FileId, ManifestEntry>> byPartition = new HashMap<>();

  public LiveFileCache(TableStore table) {
    this.table = table;
    this.scan = new FileStoreScan(table);
  }

  /** The live files of {@code snapshot} in {@code partitions} ({@code null}: none). */
  public List<ManifestEntry> liveFiles(Snapshot snapshot, Collection<String> partitions)
      throws IOException {
    if (snapshot == null) {
      return List.of();
    }
    moveTo(snapshot);
    List<ManifestEntry> live = new ArrayList<>();
    for (String partition : partitions) {
      Map<ManifestEntry.FileId, ManifestEntry> files = byPartition.get(partition);
      if (files != null) {
        live.addAll(files.values());
      }
    }
    return live;
  }

  private void moveTo(Snapshot target) throws IOException {
    if (at != null && at.id() == target.id() && at.commitId().equals(target.commitId())) {
      return;
    }
    if (at != null && at.id() < target.id() && target.id() - at.id() <= MAX_STEPS) {
      List<List<ManifestEntry>> deltas = deltasBetween(at, target);
      if (deltas != null) {
        for (List<ManifestEntry> delta : deltas) {
          apply(byPartition, delta);
        }
        at = target;
        return;
      }
    }
    Map<String, Map<ManifestEntry.FileId, ManifestEntry>> fresh = new HashMap<>();
    apply(fresh, new ArrayList<>(scan.liveFiles(target).values()));
    byPartition = fresh;
    at = target;
  }

  /** The deltas of the snapshots after {@code from} up to {@code to}, or null when not a chain. */
  private List<List<ManifestEntry>> deltasBetween(Snapshot from, Snapshot to) throws IOException {
    List<List<ManifestEntry>> deltas = new ArrayList<>();
    Snapshot previous = from;
    try {
      for (long id = from.id() + 1; id <= to.id(); id++) {
        Optional<Snapshot> next =
            id == to.id() ? Optional.of(to) : table.snapshotManager().find(id);
        if (next.isEmpty() || !previous.isParentOf(next.get())) {
          return null;
        }
        deltas.add(scan.delta(next.get()));
        previous = next.get();
      }
    } catch (FileNotFoundException expired) {
      return null;
    }
    return deltas;
  }

  private static void apply(
      Map<String, Map<ManifestEntry.FileId, ManifestEntry>> live, List<ManifestEntry> changes) {
    for (ManifestEntry e : changes) {
      Map<ManifestEntry.FileId, ManifestEntry> files =
          live.computeIfAbsent(e.partition(), p -> new HashMap<>());
      if (e.kind() == dev.lockstep.engine.manifest.FileKind.ADD) {
        files.put(e.id(), e);
      } else {
        files.remove(e.id());
      }
    }
  }
}
