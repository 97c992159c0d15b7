package dev.lockstep.engine.scan;

import dev.lockstep.engine.format.StatsCodec;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.predicate.StatsView;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the file set of a snapshot from its manifests: base manifests, then the delta, in order; an
 * ADD makes a file live, a later DELETE of the same file removes it. The manifests are read in
 * parallel ({@code scan.manifest.parallelism}) and applied in order.
 */
public final class FileStoreScan {

  private final TableStore table;

  public FileStoreScan(TableStore table) {
    this.table = table;
  }

  /** The manifests a snapshot consists of: base list, prior deltas, then its own delta list. */
  public List<ManifestFileMeta> manifests(Snapshot snapshot) throws IOException {
    List<ManifestFileMeta> metas =
        new ArrayList<>(table.manifestList().read(snapshot.baseManifestList()));
    for (Snapshot.PriorDelta prior : snapshot.priorDeltas()) {
      metas.addAll(stamp(prior.deltaManifestList(), prior.snapshotId()));
    }
    metas.addAll(deltaManifests(snapshot));
    return metas;
  }

  /** The entries of {@code metas}, in order, commit snapshots resolved. */
  public List<ManifestEntry> entries(List<ManifestFileMeta> metas) throws IOException {
    List<ManifestEntry> entries = new ArrayList<>();
    for (List<ManifestEntry> read : read(metas)) {
      entries.addAll(read);
    }
    return entries;
  }

  /**
   * The entries of each of {@code metas}, in order, read by up to {@code scan.manifest.parallelism}
   * threads ({@link ParallelManifestReads}).
   */
  private List<List<ManifestEntry>> read(List<ManifestFileMeta> metas) throws IOException {
    return ParallelManifestReads.read(
        metas, table.manifestFile()::read, table.options().scanManifestParallelism());
  }

  /** The live files of {@code snapshot} (ADD entries only), by file id. */
  public Map<ManifestEntry.FileId, ManifestEntry> liveFiles(Snapshot snapshot) throws IOException {
    if (snapshot == null) {
      return new LinkedHashMap<>();
    }
    return applyAll(read(manifests(snapshot)));
  }

  /**
   * The live files of {@code snapshot} in the partitions that might make {@code partitionFilter}
   * TRUE: a manifest whose partition statistics show that none of its partitions can is not read
   * (counted in {@code metrics}). The files of the other partitions may be missing from the result
   * or not; callers filter partitions exactly.
   *
   * @param partitionFilter a predicate on the table's partition row, or {@code null}
   */
  public Map<ManifestEntry.FileId, ManifestEntry> liveFiles(
      Snapshot snapshot, Predicate partitionFilter, ScanMetrics metrics) throws IOException {
    if (snapshot == null) {
      return new LinkedHashMap<>();
    }
    StatsCodec codec = table.partitionStatsCodec();
    List<ManifestFileMeta> toRead = new ArrayList<>();
    for (ManifestFileMeta meta : manifests(snapshot)) {
      if (partitionFilter != null && codec != null && meta.partitionStats() != null) {
        FieldStats[] stats = codec.decode(meta.partitionStats());
        if (stats != null && !partitionFilter.mightMatch(StatsView.of(-1, stats))) {
          metrics.manifestsSkipped.incrementAndGet();
          continue;
        }
      }
      metrics.manifestsRead.incrementAndGet();
      toRead.add(meta);
    }
    return applyAll(read(toRead));
  }

  /** The live files after {@code changes}, applied in order; sized once for all of them. */
  private static Map<ManifestEntry.FileId, ManifestEntry> applyAll(
      List<List<ManifestEntry>> changes) {
    long total = 0;
    for (List<ManifestEntry> c : changes) {
      total += c.size();
    }
    Map<ManifestEntry.FileId, ManifestEntry> live =
        new LinkedHashMap<>((int) Math.min(1 << 30, total * 4 / 3 + 16));
    for (List<ManifestEntry> c : changes) {
      apply(live, c);
    }
    return live;
  }

  /** The changes {@code snapshot} made (its delta manifests), commit snapshots resolved. */
  public List<ManifestEntry> delta(Snapshot snapshot) throws IOException {
    return entries(deltaManifests(snapshot));
  }

  /**
   * The changelog files {@code snapshot} committed (ADD entries, in write order); empty when it has
   * none.
   */
  public List<ManifestEntry> changelog(Snapshot snapshot) throws IOException {
    if (snapshot.changelogManifestList() == null) {
      return List.of();
    }
    return entries(stamp(snapshot.changelogManifestList(), snapshot.id()));
  }

  /**
   * The delta manifests of {@code snapshot}, stamped with its id: a delta list is written once per
   * commit, before the snapshot id is known, and its entries belong to the snapshot that names it.
   */
  private List<ManifestFileMeta> deltaManifests(Snapshot snapshot) throws IOException {
    return stamp(snapshot.deltaManifestList(), snapshot.id());
  }

  private List<ManifestFileMeta> stamp(String deltaList, long snapshotId) throws IOException {
    List<ManifestFileMeta> metas = new ArrayList<>();
    for (ManifestFileMeta meta : table.manifestList().read(deltaList)) {
      metas.add(meta.withSnapshotId(snapshotId));
    }
    return metas;
  }

  /** Applies {@code changes} in order to {@code live}. */
  public static void apply(
      Map<ManifestEntry.FileId, ManifestEntry> live, List<ManifestEntry> changes) {
    for (ManifestEntry e : changes) {
      if (e.kind() == FileKind.ADD) {
        live.put(e.id(), e);
      } else {
        live.remove(e.id());
      }
    }
  }
}
