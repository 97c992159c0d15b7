package dev.lockstep.engine.maintenance;

import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.snapshot.ConsumerManager;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.engine.store.MaintenanceGate;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires old snapshots of a table and deletes the files that only they referenced.
 *
 * <ol>
 *   <li>Read the earliest snapshot E (the first whose successor exists and was built on it: a
 *       snapshot below it is an expired id published again, which its committer withdraws, and is
 *       never touched) and the latest L. Walk up from E and pick the snapshots to expire, [E, X):
 *       each leaves at least {@code snapshot.num-retained.min} newer snapshots, and either the
 *       snapshot after it is older than {@code snapshot.time-retained} or more than {@code
 *       snapshot.num-retained.max} would remain; at most {@code snapshot.expire.limit}.
 *   <li>Read, before deleting anything: the data files live in any expired snapshot (live files of
 *       E plus every file the deltas of E+1..X-1 added), the live files of X, the manifest lists
 *       and manifests the expired snapshots name, and those every retained snapshot X..L' names (L'
 *       read again now).
 *   <li>Delete the snapshot files E..X-1, oldest first (each re-read right before: a run that finds
 *       one changed stops), never the newest and only along links (each was read with its successor
 *       built on it), then write the {@code EARLIEST} hint X. This order is what lets a committer
 *       prove its snapshot id fresh ({@code CommitLoop.verifyFresh}).
 *   <li>Delete the data files that were live in an expired snapshot and are not live in X, then the
 *       manifests and manifest lists that no retained snapshot names; except those a tag keeps
 *       (live in or named by a tagged snapshot, {@link TagManager}; the tags are read after step
 *       3).
 * </ol>
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>Only files that an expired snapshot referenced are deleted. A file no snapshot has named
 *       (written by a writer whose commit is in flight, or whose outcome is unknown) is never
 *       touched: that is orphan-file removal's job, behind its age guard.
 *   <li>A file referenced by a retained snapshot is never deleted: files get fresh names and are
 *       never added again once deleted, so a file live in an expired snapshot and in a later one is
 *       live in X; future snapshots derive their manifests from the latest retained one.
 *   <li>Readers: a snapshot S is expired only after its successor was committed more than {@code
 *       snapshot.time-retained} ago. So a reader that planned on the latest snapshot can read its
 *       files for at least {@code snapshot.time-retained} (less the duration of one commit
 *       attempt). A longer read, or a time-travel read of a snapshot that gets expired, may meet a
 *       {@link FileNotFoundException}: plan again on a retained snapshot.
 *   <li>After a failure or crash between steps 3 and 4, the files not yet deleted are orphans that
 *       {@link OrphanFilesCleaner} collects; no retained snapshot points at a missing file.
 *   <li>Several expirations may run at once (writers in many processes): each deletes only what its
 *       own expired range referenced, and a run that finds a snapshot of its range gone (someone
 *       else expired it) stops before deleting anything.
 * </ul>
 *
 * Not thread-safe; {@link #afterCommit} runs at most one expiration per table object at a time.
 */
public final class SnapshotExpiration {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpiration.class);

  private final TableStore table;
  private final MaintenanceOptions options;

  /** Set by {@link #pickEnd} when the earliest snapshot is kept only by its successor's age. */
  private long earliestExpiresAtMillis;

  /** Expiration with the table's own options. */
  public SnapshotExpiration(TableStore table) {
    this(table, MaintenanceOptions.from(table.options().all().asMap()));
  }

  public SnapshotExpiration(TableStore table, MaintenanceOptions options) {
    this.table = table;
    this.options = options;
  }

  public MaintenanceOptions options() {
    return options;
  }

  /**
   * Runs after a commit of a writer that is not {@code write-only}: expires with the table's
   * options. Never throws (the commit has succeeded); a failure is logged and the next commit tries
   * again. Skipped when another thread is expiring through the same table object ({@link
   * TableStore#maintenanceGate()}); table objects of one table expire independently.
   */
  public static void afterCommit(TableStore table) {
    if (table.options().writeOnly()) {
      return;
    }
    MaintenanceGate gate = table.maintenanceGate();
    if (!gate.tryEnter()) {
      return;
    }
    try {
      MaintenanceOptions options = MaintenanceOptions.from(table.options().all().asMap());
      if (options.numRetainedMin() == Integer.MAX_VALUE) {
        return;
      }
      // Cheap path for the common case: the oldest snapshot is too young to expire yet.
      // (A table object's options never change, so one time per object.)
      long notBefore = gate.notBeforeMillis();
      if (notBefore > 0 && System.currentTimeMillis() < notBefore) {
        return;
      }
      SnapshotExpiration expiration = new SnapshotExpiration(table, options);
      ExpireReport report = expiration.expire();
      if (report.expiredSnapshots() == 0
          && expiration.earliestExpiresAtMillis > 0
          && options.numRetainedMax() == Integer.MAX_VALUE) {
        gate.notBefore(expiration.earliestExpiresAtMillis);
      } else {
        gate.notBefore(0);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Snapshot expiration of {} after a commit failed (the commit stands; the next one"
              + " tries again): {}",
          table.fullName(),
          e.toString());
    } finally {
      gate.exit();
    }
  }

  /** Expires and deletes; see the class javadoc. */
  public ExpireReport expire() throws IOException {
    return run(false, System.currentTimeMillis());
  }

  /** Reports what {@link #expire} would delete now, deleting nothing. */
  public ExpireReport dryRun() throws IOException {
    return run(true, System.currentTimeMillis());
  }

  private ExpireReport run(boolean dryRun, long nowMillis) throws IOException {
    SnapshotManager snapshots = table.snapshotManager();
    // The oldest file (hint or listing), then up to the first snapshot of the history: one below
    // it is an expired id published again, never expired here (SnapshotManager.firstOfHistory).
    OptionalLong earliestId = snapshots.log().earliestId();
    OptionalLong latestId = snapshots.latestId();
    if (earliestId.isEmpty() || latestId.isEmpty()) {
      return ExpireReport.nothing(0, dryRun);
    }
    long latest = latestId.getAsLong();
    long earliest = snapshots.firstOfHistory(earliestId.getAsLong(), latest);
    if (!dryRun && !table.fileIO().exists(snapshots.log().directory().child("EARLIEST"))) {
      // Without the hint every earliestId() lists the snapshot directory.
      snapshots.log().writeEarliestHint(earliest);
    }
    long end =
        pickEnd(
            earliest,
            latest,
            nowMillis,
            options.numRetainedMin(),
            options.numRetainedMax(),
            options.timeRetained());
    end = Math.min(end, changelogAndConsumerEnd(earliest, latest, nowMillis, dryRun));
    if (end == earliest) {
      return ExpireReport.nothing(earliest, dryRun);
    }
    Optional<Plan> plan = plan(earliest, end);
    if (plan.isEmpty()) {
      LOG.info(
          "Snapshots of {} vanished while planning an expiration (another one runs); skipped",
          table.fullName());
      return ExpireReport.nothing(snapshots.earliestId().orElse(0), dryRun);
    }
    Plan p = plan.get();
    if (dryRun) {
      keepTagged(p);
    } else {
      FileIO io = table.fileIO();
      for (long id = earliest; id < end; id++) {
        // Read right before deleting: the file must still be the snapshot the plan read (an id
        // published again after another expiration removed it is its committer's to withdraw).
        Optional<Snapshot> now = snapshots.readUncached(id);
        if (now.isEmpty()
            || !now.get().commitId().equals(p.expired.get((int) (id - earliest)).commitId())) {
          LOG.info(
              "Snapshot {} of {} changed while expiring (another expiration runs); stopped",
              id,
              table.fullName());
          return ExpireReport.nothing(snapshots.earliestId().orElse(0), dryRun);
        }
        io.delete(snapshots.log().snapshotPath(id), false);
      }
      snapshots.log().writeEarliestHint(end);
      // Read after the snapshot files are gone: a tag created since the plan either is seen here
      // or saw its snapshot gone and was withdrawn (TagManager.create).
      keepTagged(p);
      for (Map.Entry<String, Long> file : p.dataFiles.entrySet()) {
        deleteQuietly(table.path().child(file.getKey()));
      }
      for (String name : p.manifests.keySet()) {
        deleteQuietly(table.path().child("manifest").child(name));
      }
    }
    long bytes =
        p.dataFiles.values().stream().mapToLong(Long::longValue).sum()
            + p.manifests.values().stream().mapToLong(Long::longValue).sum();
    LOG.info(
        "{} snapshots {}..{} of {}: {} data files, {} manifests{}",
        dryRun ? "Would expire" : "Expired",
        earliest,
        end - 1,
        table.fullName(),
        p.dataFiles.size(),
        p.manifests.size(),
        dryRun ? " (dry run)" : "");
    return new ExpireReport(
        earliest,
        end - 1,
        dryRun ? earliest : end,
        new ArrayList<>(p.dataFiles.keySet()),
        new ArrayList<>(p.manifests.keySet()),
        bytes,
        dryRun);
  }

  /** Takes every file a tag keeps out of the plan's deletions. */
  private void keepTagged(Plan p) throws IOException {
    Set<String> dataFiles = new HashSet<>();
    Set<String> manifests = new HashSet<>();
    TagManager tags = new TagManager(table);
    tags.addReferences(tags.tags(), dataFiles, manifests);
    p.dataFiles.keySet().removeAll(dataFiles);
    for (String manifest : manifests) {
      p.manifests.remove(manifest.substring("manifest/".length()));
    }
  }

  /**
   * The first snapshot that the changelog retention ({@code changelog.*}, defaulting to the
   * snapshot options: a snapshot and its changelog files expire together, so the longer of the two
   * retentions keeps both) and the live consumers (their next snapshot and every later one) keep;
   * {@code latest} when they keep nothing more. Deletes consumers past {@code
   * consumer.expiration-time} unless {@code dryRun}.
   */
  private long changelogAndConsumerEnd(long earliest, long latest, long nowMillis, boolean dryRun)
      throws IOException {
    ChangelogOptions changelog = table.changelogOptions();
    long end = latest;
    if (changelog.numRetainedMin() != null
        || changelog.numRetainedMax() != null
        || changelog.timeRetained() != null) {
      long saved = earliestExpiresAtMillis;
      end =
          pickEnd(
              earliest,
              latest,
              nowMillis,
              changelog.numRetainedMin() == null
                  ? options.numRetainedMin()
                  : changelog.numRetainedMin(),
              changelog.numRetainedMax() == null
                  ? options.numRetainedMax()
                  : Math.max(
                      changelog.numRetainedMax(),
                      changelog.numRetainedMin() == null
                          ? options.numRetainedMin()
                          : changelog.numRetainedMin()),
              changelog.timeRetained() == null ? options.timeRetained() : changelog.timeRetained());
      earliestExpiresAtMillis = Math.max(saved, earliestExpiresAtMillis);
    }
    OptionalLong consumer =
        new ConsumerManager(table.fileIO(), table.path())
            .minNextSnapshot(changelog.consumerExpiration(), nowMillis, !dryRun);
    if (consumer.isPresent()) {
      end = Math.min(end, Math.max(earliest, consumer.getAsLong()));
      // A consumer's position moves without a commit: the cheap "too young" path must not hold.
      earliestExpiresAtMillis = 0;
    }
    return end;
  }

  /** The first snapshot to keep: {@code earliest} when nothing may expire. */
  private long pickEnd(
      long earliest,
      long latest,
      long nowMillis,
      int numRetainedMin,
      int numRetainedMax,
      java.time.Duration timeRetained)
      throws IOException {
    long cutoff = nowMillis - timeRetained.toMillis();
    long end = earliest;
    for (long id = earliest; id < latest && end - earliest < options.expireLimit(); id++) {
      if (latest - id < numRetainedMin) {
        break;
      }
      boolean overMax = latest - id + 1 > numRetainedMax;
      if (!overMax) {
        Optional<Snapshot> next = table.snapshotManager().find(id + 1);
        if (next.isEmpty() || next.get().timeMillis() > cutoff) {
          if (next.isPresent() && id == earliest) {
            earliestExpiresAtMillis = next.get().timeMillis() + timeRetained.toMillis() + 1;
          }
          break;
        }
      }
      end = id + 1;
    }
    return end;
  }

  /** What one run deletes: relative data-file paths and manifest names, with their sizes. */
  private record Plan(
      List<Snapshot> expired, Map<String, Long> dataFiles, Map<String, Long> manifests) {}

  /** Reads everything first; empty when a snapshot of the range is gone (another expiration). */
  private Optional<Plan> plan(long earliest, long end) throws IOException {
    SnapshotManager snapshots = table.snapshotManager();
    FileStoreScan scan = new FileStoreScan(table);
    List<Snapshot> seen = new ArrayList<>();
    try {
      List<Snapshot> expired = new ArrayList<>();
      for (long id = earliest; id <= end; id++) {
        long current = id;
        Snapshot s =
            snapshots
                .readUncached(id)
                .orElseThrow(() -> new FileNotFoundException("snapshot " + current));
        if (!expired.isEmpty() && !expired.get(expired.size() - 1).isParentOf(s)) {
          LOG.info(
              "Snapshot {} of {} was not built on {}; expiration stops",
              id,
              table.fullName(),
              id - 1);
          return Optional.empty();
        }
        expired.add(s);
        seen.add(s);
      }
      expired.remove(expired.size() - 1);
      Map<ManifestEntry.FileId, ManifestEntry> once =
          new LinkedHashMap<>(scan.liveFiles(expired.get(0)));
      for (Snapshot s : expired.subList(1, expired.size())) {
        for (ManifestEntry e : scan.delta(s)) {
          if (e.kind() == FileKind.ADD) {
            once.put(e.id(), e);
          }
        }
      }
      once.keySet().removeAll(scan.liveFiles(snapshots.get(end)).keySet());
      Map<String, Long> dataFiles = new LinkedHashMap<>();
      for (ManifestEntry e : once.values()) {
        dataFiles.put(
            new BucketId(e.partition(), e.bucket()).directory() + "/" + e.file().fileName(),
            e.file().fileSize());
      }
      // Changelog files belong to the one snapshot that names them: they go with it.
      for (Snapshot s : expired) {
        for (ManifestEntry e : scan.changelog(s)) {
          dataFiles.put(
              new BucketId(e.partition(), e.bucket()).directory() + "/" + e.file().fileName(),
              e.file().fileSize());
        }
      }
      Map<String, Long> expiredManifests = new LinkedHashMap<>();
      collectManifests(expired, expiredManifests, true);
      long latestNow = snapshots.latestId().orElse(end);
      List<Snapshot> retained = new ArrayList<>();
      for (long id = end; id <= latestNow; id++) {
        retained.add(snapshots.get(id));
      }
      seen.addAll(retained);
      Map<String, Long> retainedManifests = new LinkedHashMap<>();
      collectManifests(retained, retainedManifests, false);
      expiredManifests.keySet().removeAll(retainedManifests.keySet());
      return Optional.of(new Plan(expired, dataFiles, expiredManifests));
    } catch (FileNotFoundException e) {
      noteIfLost(seen, e);
      return Optional.empty();
    }
  }

  /**
   * After a {@link FileNotFoundException} while planning: when every snapshot read is still there
   * as read, no expiration removed the file meanwhile; it is lost. Names it in the table's {@link
   * dev.lockstep.engine.snapshot.SkippedDamage} (nothing expires this run; {@code table check}
   * lists the damage).
   */
  private void noteIfLost(List<Snapshot> seen, FileNotFoundException missing) {
    try {
      for (Snapshot s : seen) {
        Optional<Snapshot> now = table.snapshotManager().readUncached(s.id());
        if (now.isEmpty() || !now.get().commitId().equals(s.commitId())) {
          return; // another expiration runs
        }
      }
      if (!seen.isEmpty() && MissingMetadata.note(table, seen)) {
        LOG.info(
            "A file the snapshots {}..{} of {} name is missing ({}); nothing expired",
            seen.get(0).id(),
            seen.get(seen.size() - 1).id(),
            table.fullName(),
            missing.getMessage());
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("Could not tell which file of {} is missing: {}", table.fullName(), e.toString());
    }
  }

  /** Adds every manifest list the snapshots name, and every manifest in them (with sizes). */
  private void collectManifests(List<Snapshot> snapshots, Map<String, Long> out, boolean sizes)
      throws IOException {
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
    // Index manifests and the index files they name (dynamic buckets) live in manifest/ too.
    for (Snapshot s : snapshots) {
      if (s.indexManifest() != null && !out.containsKey(s.indexManifest())) {
        out.put(
            s.indexManifest(),
            sizes ? table.fileIO().getStatus(dir.child(s.indexManifest())).length() : 0L);
        for (IndexFileMeta f : table.indexManifest().read(s.indexManifest())) {
          out.put(f.fileName(), f.fileSize());
        }
      }
    }
    for (String list : lists) {
      for (ManifestFileMeta m : table.manifestList().read(list)) {
        out.put(m.fileName(), m.fileSize());
      }
      if (!out.containsKey(list)) {
        out.put(list, sizes ? table.fileIO().getStatus(dir.child(list)).length() : 0L);
      }
    }
  }

  private void deleteQuietly(Path path) {
    try {
      table.fileIO().delete(path, false);
    } catch (IOException e) {
      LOG.warn(
          "Could not delete {} after expiring its snapshots (orphan-file removal collects"
              + " it): {}",
          path,
          e.toString());
    }
  }
}
