package dev.lockstep.engine.manifest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keeps the manifests of a table's snapshots bounded by its live files rather than its history (the
 * scheme of Apache Paimon's manifest merging, docs/engine.md "Manifest merging"). Run when a commit
 * writes a new base manifest list, over the manifests of the snapshot it builds on, in order:
 *
 * <ol>
 *   <li><b>Full compaction</b>, when the manifests after the leading run of large manifests without
 *       deleted entries (each at least {@code manifest.target-file-size}) add up to {@code
 *       manifest.full-compaction-threshold-size} and hold at least one deleted entry: every DELETE
 *       entry is dropped with the ADD it cancels. A large leading manifest that names none of the
 *       deleted files is kept as it is; the others' live entries are written again, rolled at the
 *       target size. Without a deleted entry there is nothing to drop, and nothing is rewritten.
 *   <li>Otherwise a <b>tiered minor merge</b> of the newest manifests: a run gathers manifests from
 *       the newest backwards, each below the target size and holding at most {@value #TIER_RATIO}
 *       times as many entries as the run gathered so far; the run is merged once it has {@code
 *       manifest.merge-min-count} manifests or adds up to the target size, and older manifests are
 *       kept as they are. So a manifest is written again only together with newer entries at least
 *       1 / {@value #TIER_RATIO} of its own, never just to add a few entries to it: the entries a
 *       merge writes are, amortized, a logarithmic number of rewrites of each committed entry (not
 *       the table's live entries every {@code merge-min-count} base lists, which is what merging
 *       every manifest below the target size, as Paimon does, costs once a table's live entries
 *       fill a large manifest below the target size), and the manifests below the target size form
 *       tiers whose entries at least double from each to the older one before it, plus fewer than
 *       {@code merge-min-count} unmerged ones. Within a merged run an ADD and a later DELETE of the
 *       same file cancel; a DELETE of a file added before the run stays (ahead of the run's ADDs).
 * </ol>
 *
 * A merged manifest holds each entry's own commit snapshot (its meta's snapshot id is -1). Inputs
 * are never deleted here: they belong to the snapshots that name them, and expiration deletes a
 * manifest once no retained snapshot names it.
 */
public final class ManifestFileMerger {

  /**
   * A manifest joins a minor merge's run only when it holds at most this many times the entries the
   * run gathered so far (the newer manifests).
   */
  static final int TIER_RATIO = 2;

  private final ManifestFile manifests;
  private final long targetSize;
  private final int minCount;
  private final long fullCompactionThreshold;

  public ManifestFileMerger(
      ManifestFile manifests, long targetSize, int minCount, long fullCompactionThreshold) {
    this.manifests = manifests;
    this.targetSize = targetSize;
    this.minCount = minCount;
    this.fullCompactionThreshold = fullCompactionThreshold;
  }

  /**
   * The manifests that replace {@code input} (the same entries, as a scan applies them in order).
   *
   * @param written receives the names of the manifests written here (for clean-up by the caller)
   */
  public List<ManifestFileMeta> merge(List<ManifestFileMeta> input, List<String> written)
      throws IOException {
    List<ManifestFileMeta> full = tryFullCompaction(input, written);
    return full != null ? full : minorMerge(input, written);
  }

  private List<ManifestFileMeta> tryFullCompaction(
      List<ManifestFileMeta> input, List<String> written) throws IOException {
    int base = 0;
    while (base < input.size()
        && input.get(base).fileSize() >= targetSize
        && input.get(base).numDeleted() == 0) {
      base++;
    }
    long deltaSize = 0;
    for (int i = base; i < input.size(); i++) {
      deltaSize += input.get(i).fileSize();
    }
    boolean anyDeleted = false;
    for (int i = base; i < input.size(); i++) {
      anyDeleted |= input.get(i).numDeleted() > 0;
    }
    if (deltaSize < fullCompactionThreshold || !anyDeleted) {
      return null;
    }
    List<ManifestEntry> deltaEntries = new ArrayList<>();
    Set<ManifestEntry.FileId> deleted = new HashSet<>();
    for (int i = base; i < input.size(); i++) {
      for (ManifestEntry e : manifests.read(input.get(i))) {
        deltaEntries.add(e);
        if (e.kind() == FileKind.DELETE) {
          deleted.add(e.id());
        }
      }
    }
    List<ManifestFileMeta> result = new ArrayList<>();
    Map<ManifestEntry.FileId, ManifestEntry> live = new LinkedHashMap<>();
    for (int i = 0; i < base; i++) {
      ManifestFileMeta m = input.get(i);
      List<ManifestEntry> entries = manifests.read(m);
      if (entries.stream().noneMatch(e -> deleted.contains(e.id()))) {
        result.add(m);
      } else {
        for (ManifestEntry e : entries) {
          live.put(e.id(), e);
        }
      }
    }
    for (ManifestEntry e : deltaEntries) {
      if (e.kind() == FileKind.ADD) {
        live.put(e.id(), e);
      } else {
        live.remove(e.id());
      }
    }
    result.addAll(writeRolling(new ArrayList<>(live.values()), input, written));
    return result;
  }

  private List<ManifestFileMeta> minorMerge(List<ManifestFileMeta> input, List<String> written)
      throws IOException {
    int from = input.size();
    long runEntries = 0;
    long runBytes = 0;
    while (from > 0) {
      ManifestFileMeta older = input.get(from - 1);
      long entries = older.numAdded() + older.numDeleted();
      if (older.fileSize() >= targetSize
          || (from < input.size() && entries > TIER_RATIO * runEntries)) {
        break; // a target-size manifest, or a tier of its own: kept, and so is everything older
      }
      from--;
      runEntries += entries;
      runBytes += older.fileSize();
    }
    int count = input.size() - from;
    if (count < 2 || (count < minCount && runBytes < targetSize)) {
      return input;
    }
    List<ManifestFileMeta> result = new ArrayList<>(input.subList(0, from));
    result.addAll(mergeRun(input.subList(from, input.size()), written));
    return result;
  }

  /** One run of consecutive manifests as few as possible: ADD + DELETE pairs cancelled. */
  private List<ManifestFileMeta> mergeRun(List<ManifestFileMeta> run, List<String> written)
      throws IOException {
    if (run.size() == 1) {
      return List.of(run.get(0));
    }
    Map<ManifestEntry.FileId, ManifestEntry> deleteEntries = new LinkedHashMap<>();
    Map<ManifestEntry.FileId, ManifestEntry> adds = new LinkedHashMap<>();
    for (ManifestFileMeta m : run) {
      for (ManifestEntry e : manifests.read(m)) {
        if (e.kind() == FileKind.ADD) {
          adds.put(e.id(), e);
        } else if (adds.remove(e.id()) == null) {
          deleteEntries.put(e.id(), e);
        }
      }
    }
    List<ManifestEntry> merged = new ArrayList<>(deleteEntries.values());
    merged.addAll(adds.values());
    return writeRolling(merged, run, written);
  }

  /** {@code entries} in manifests of about the target size each (estimated from the inputs). */
  private List<ManifestFileMeta> writeRolling(
      List<ManifestEntry> entries, List<ManifestFileMeta> inputs, List<String> written)
      throws IOException {
    if (entries.isEmpty()) {
      return List.of();
    }
    long bytes = 0;
    long count = 0;
    for (ManifestFileMeta m : inputs) {
      bytes += m.fileSize();
      count += m.numAdded() + m.numDeleted();
    }
    long perEntry = Math.max(1, count == 0 ? 100 : bytes / count);
    int perFile = (int) Math.max(1, Math.min(Integer.MAX_VALUE, targetSize / perEntry));
    List<ManifestFileMeta> out = new ArrayList<>();
    for (int from = 0; from < entries.size(); from += perFile) {
      ManifestFileMeta m =
          manifests.write(entries.subList(from, Math.min(entries.size(), from + perFile)));
      written.add(m.fileName());
      out.add(m);
    }
    return out;
  }
}
