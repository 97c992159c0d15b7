package dev.lockstep.engine.scan;

import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A writer's or compactor's view of the table's live files, kept up to date incrementally: {@link
 * #refresh()} applies only the deltas of snapshots committed since the last refresh (a full reload
 * when one of them has expired). Not thread-safe.
 */
public final class LiveFileView {

  private final TableStore table;
  private final FileStoreScan scan;
  private Map<ManifestEntry.FileId, ManifestEntry> live = new HashMap<>();
  private long snapshotId;

  public LiveFileView(TableStore table) {
    this.table = table;
    this.scan = new FileStoreScan(table);
  }

  /** The snapshot the view is at; 0 before the first commit. */
  public long snapshotId() {
    return snapshotId;
  }

  /** Moves the view to the latest snapshot. */
  public void refresh() throws IOException {
    OptionalLong latest = table.snapshotManager().latestId();
    if (latest.isEmpty() || latest.getAsLong() <= snapshotId) {
      return;
    }
    long target = latest.getAsLong();
    if (snapshotId == 0 || target - snapshotId > 100) {
      reload(target);
      return;
    }
    Map<ManifestEntry.FileId, ManifestEntry> next = new HashMap<>(live);
    for (long id = snapshotId + 1; id <= target; id++) {
      Optional<Snapshot> s = table.snapshotManager().find(id);
      if (s.isEmpty()) {
        reload(target);
        return;
      }
      try {
        FileStoreScan.apply(next, scan.delta(s.get()));
      } catch (java.io.FileNotFoundException expired) {
        // Expired meanwhile (its delta manifests deleted): the latest snapshot has everything.
        reload(target);
        return;
      }
    }
    live = next;
    snapshotId = target;
  }

  private void reload(long target) throws IOException {
    live = new HashMap<>(scan.liveFiles(table.snapshotManager().get(target)));
    snapshotId = target;
  }

  /** The live files of one bucket. */
  public List<DataFileMeta> files(String partition, int bucket) {
    List<DataFileMeta> files = new ArrayList<>();
    for (ManifestEntry e : live.values()) {
      if (e.bucket() == bucket && e.partition().equals(partition)) {
        files.add(e.file());
      }
    }
    return files;
  }

  /** The (partition, bucket) pairs that have live files. */
  public Set<BucketId> buckets() {
    Set<BucketId> buckets = new LinkedHashSet<>();
    for (ManifestEntry e : live.values()) {
      buckets.add(new BucketId(e.partition(), e.bucket()));
    }
    return buckets;
  }
}
