package dev.lockstep.engine.commit;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.format.KeyCodec;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.scan.LiveFileCache;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Decides whether a commit's changes still apply on top of other commits.
 *
 * <ol>
 *   <li>{@link #checkAgainstLive}: once for every commit (pure level-0 appends included), against
 *       the full file set of the snapshot the commit is first attempted on: every deleted file is
 *       live; no added level >= 1 file overlaps a live file of its level and bucket (files the
 *       commit deletes do not count); every live file of a touched partition has the commit's
 *       bucket count.
 *   <li>{@link #checkDelta}: after a snapshot conflict, for each snapshot committed since (only
 *       their delta manifests): none deleted a file we delete; none added an overlapping level >= 1
 *       file to our bucket and level; none added a file with another bucket count to our
 *       partitions; for an OVERWRITE, none but a COMPACT added a file to an overwritten partition.
 * </ol>
 */
final class ConflictDetector {

  private final KeyCodec keyCodec;
  private final int totalBuckets;
  private final Set<ManifestEntry.FileId> deletes = new HashSet<>();
  private final Map<String, List<ManifestEntry>> leveledAdds = new HashMap<>();
  private final Set<String> partitions = new HashSet<>();
  private final Predicate<String> overwritten;

  /**
   * @param overwritten the partitions an OVERWRITE replaces; {@code null} for other kinds
   */
  ConflictDetector(
      KeyCodec keyCodec,
      int totalBuckets,
      List<ManifestEntry> changes,
      Predicate<String> overwritten) {
    this.keyCodec = keyCodec;
    this.totalBuckets = totalBuckets;
    this.overwritten = overwritten;
    for (ManifestEntry e : changes) {
      partitions.add(e.partition());
      if (e.kind() == FileKind.DELETE) {
        deletes.add(e.id());
      } else if (e.file().level() > 0) {
        leveledAdds.computeIfAbsent(bucketKey(e), k -> new ArrayList<>()).add(e);
      }
    }
  }

  /** The partitions the commit touches: the only ones the checks look at. */
  Set<String> partitions() {
    return partitions;
  }

  /** As {@link #checkAgainstLive(LiveFileCache.Index)}, over the live files of our partitions. */
  void checkAgainstLive(Collection<ManifestEntry> live) throws FileConflictException {
    checkAgainstLive(LiveFileCache.index(live));
  }

  /**
   * The check against the live files of the commit's base, looking only at what the commit touches:
   * the bucket counts of its partitions, the files it deletes, and the live files of the buckets it
   * adds leveled files to. O(what the commit changes plus those buckets' files), not O(the live
   * files of its partitions) (issue 20).
   */
  void checkAgainstLive(LiveFileCache.Index live) throws FileConflictException {
    for (String partition : partitions) {
      for (int buckets : live.totalBuckets(partition)) {
        if (buckets != totalBuckets) {
          // Rare: find a file written with the other bucket count to name it.
          for (ManifestEntry e : live.files(partition)) {
            checkBuckets(e);
          }
        }
      }
    }
    for (List<ManifestEntry> ours : leveledAdds.values()) {
      ManifestEntry first = ours.get(0);
      for (ManifestEntry e : live.files(first.partition(), first.bucket())) {
        if (!deletes.contains(e.id())) {
          checkOverlap(e);
        }
      }
    }
    for (ManifestEntry.FileId id : deletes) {
      if (!live.contains(id)) {
        throw new FileConflictException(
            id.partition(),
            id.bucket(),
            "File "
                + id.fileName()
                + " in bucket "
                + id.bucket()
                + " of '"
                + id.partition()
                + "' is no longer live.");
      }
    }
  }

  void checkDelta(Snapshot snapshot, List<ManifestEntry> delta)
      throws FileConflictException, CommitFailedException {
    for (ManifestEntry e : delta) {
      if (e.kind() == FileKind.DELETE) {
        if (deletes.contains(e.id())) {
          throw new FileConflictException(
              e.partition(),
              e.bucket(),
              "Snapshot "
                  + snapshot.id()
                  + " ("
                  + snapshot.commitKind()
                  + " by "
                  + snapshot.commitUser()
                  + ") deleted "
                  + e.file().fileName()
                  + " first.");
        }
        continue;
      }
      checkBuckets(e);
      checkOverlap(e);
      if (overwritten != null
          && snapshot.commitKind() != CommitKind.COMPACT
          && overwritten.test(e.partition())) {
        throw new CommitFailedException(
            "Overwrite conflict: snapshot "
                + snapshot.id()
                + " ("
                + snapshot.commitKind()
                + " by "
                + snapshot.commitUser()
                + ") added "
                + e.file().fileName()
                + " to partition '"
                + e.partition()
                + "' after the overwrite's base"
                + " snapshot; overwriting would delete that data unseen. Re-run the overwrite.");
      }
    }
  }

  private void checkBuckets(ManifestEntry e) throws FileConflictException {
    if (partitions.contains(e.partition()) && e.totalBuckets() != totalBuckets) {
      throw new FileConflictException(
          e.partition(),
          e.bucket(),
          "Partition '"
              + e.partition()
              + "' has files written with "
              + e.totalBuckets()
              + " buckets; this commit uses "
              + totalBuckets
              + ".");
    }
  }

  private void checkOverlap(ManifestEntry live) throws FileConflictException {
    if (live.file().level() == 0 || keyCodec == null) {
      return;
    }
    List<ManifestEntry> ours = leveledAdds.get(bucketKey(live));
    if (ours == null) {
      return;
    }
    for (ManifestEntry e : ours) {
      if (e.file().level() == live.file().level() && overlap(e.file(), live.file())) {
        throw new FileConflictException(
            e.partition(),
            e.bucket(),
            "New level-"
                + e.file().level()
                + " file "
                + e.file().fileName()
                + " overlaps live file "
                + live.file().fileName()
                + " in bucket "
                + e.bucket()
                + " of '"
                + e.partition()
                + "'.");
      }
    }
  }

  private boolean overlap(DataFileMeta a, DataFileMeta b) {
    GenericRow aMin = keyCodec.decode(a.minKey());
    GenericRow aMax = keyCodec.decode(a.maxKey());
    GenericRow bMin = keyCodec.decode(b.minKey());
    GenericRow bMax = keyCodec.decode(b.maxKey());
    return RowComparator.INSTANCE.compare(aMax, bMin) >= 0
        && RowComparator.INSTANCE.compare(bMax, aMin) >= 0;
  }

  private static String bucketKey(ManifestEntry e) {
    return e.partition() + "\u0000" + e.bucket();
  }
}
