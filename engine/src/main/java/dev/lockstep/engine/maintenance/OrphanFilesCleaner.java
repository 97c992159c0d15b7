package dev.lockstep.engine.maintenance;

import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.snapshot.DamagedFileException;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes files under a table directory that no snapshot references: data files of failed or
 * dropped commits, manifests of abandoned commit attempts, files left by expirations that stopped
 * half way, and leftover temporary files ({@code .<name>.<uuid>.inprogress} of the local store,
 * {@code .snapshot-N.<uuid>.tmp} of the rename commit, {@code .schema-N.<uuid>.tmp}).
 *
 * <ol>
 *   <li>List every file under the table directory (before reading any snapshot, so that a commit
 *       landing during the run is seen in step 2).
 *   <li>Read every snapshot of the history, from its first ({@code SnapshotManager.earliestId}) to
 *       the latest: the data files live in any of them, and every manifest list and manifest they
 *       name; and what each snapshot below the history (an expired id published again, left for a
 *       person to remove) still names. A snapshot that expires meanwhile restarts this step (at
 *       most 5 times). Then the same for every tagged snapshot ({@link TagManager}).
 *   <li>Remove each listed file that is a data file (under a {@code bucket-N} directory), a
 *       manifest or a temporary file, is not referenced, and was last modified more than {@code
 *       older-than} ago. Schema files, snapshot files, tag files and the {@code LATEST}/{@code
 *       EARLIEST} hints are never removed. When no snapshot is visible at all, nothing is removed:
 *       a listing that momentarily shows no snapshot must not make every file look like an orphan.
 * </ol>
 *
 * <p><b>Damaged snapshots.</b> A snapshot whose file, manifest lists or manifests cannot be read
 * (empty, truncated, unparsable, or still missing on the last of the rereads while its snapshot
 * file is there) is reported in {@link OrphanReport#unreadable()}, and the files it names are
 * unknown. They were all written before it was committed, so before the next readable snapshot was:
 * every unreferenced file last modified at or before the commit time of the first readable snapshot
 * after an unreadable one is kept (all of them when the latest is unreadable), counted in {@link
 * OrphanReport#keptUnprovable()}. Files written after that time cannot be named by the damaged
 * snapshot and are removed as usual. A file a readable snapshot references is never removed.
 *
 * <p><b>The guard.</b> A writer's files are unreferenced until its commit lands, and the local
 * store's temporary file exists while a file is being written. Nothing but their age tells them
 * from orphans, so {@code older-than} must exceed the longest time from a file's creation to the
 * commit that names it (the writer's batch or checkpoint interval plus its commit time, including
 * retries after an unknown outcome). A guard of 0 is not safe beside running writers; it is safe
 * only when no writer or compaction runs. Default: 1 day.
 */
public final class OrphanFilesCleaner {

  private static final Logger LOG = LoggerFactory.getLogger(OrphanFilesCleaner.class);

  /** The default {@code older-than}. */
  public static final Duration OLDER_THAN_DEFAULT = Duration.ofDays(1);

  private static final int MAX_REREADS = 5;

  private final TableStore table;
  private final Duration olderThan;
  private final boolean dryRun;

  /** The snapshots of this run that could not be read, with the damage. */
  private final List<String> unreadable = new ArrayList<>();

  /** Unreferenced files modified at or before this time are kept (an unreadable snapshot's). */
  private long keepUpTo = Long.MIN_VALUE;

  /** Files removed so far by the running (or interrupted) {@link #clean}. */
  private volatile long removedSoFar;

  /**
   * @param olderThan only files last modified longer ago than this are removed
   * @param dryRun report what would be removed, remove nothing
   */
  public OrphanFilesCleaner(TableStore table, Duration olderThan, boolean dryRun) {
    if (olderThan.isNegative()) {
      throw new IllegalArgumentException("older-than is " + olderThan + "; it must be 0 or more.");
    }
    this.table = table;
    this.olderThan = olderThan;
    this.dryRun = dryRun;
  }

  /**
   * The files {@link #clean} has removed so far: after it was interrupted ({@link
   * java.io.InterruptedIOException}), how many it removed before it stopped.
   */
  public long removedSoFar() {
    return removedSoFar;
  }

  /** Runs steps 1 to 3; see the class javadoc. */
  public OrphanReport clean() throws IOException {
    removedSoFar = 0;
    long cutoff = System.currentTimeMillis() - olderThan.toMillis();
    List<FileStatus> files = new ArrayList<>();
    listRecursively(table.path(), files);
    unreadable.clear();
    keepUpTo = Long.MIN_VALUE;
    Set<String> referenced = referencedFiles();
    if (referenced == null) {
      // No snapshot visible. A table that has none has nothing worth cleaning yet, and a listing
      // that momentarily shows none must never make every file look unreferenced.
      LOG.info("No snapshot of {} found; orphan-file removal removes nothing", table.fullName());
      return new OrphanReport(List.of(), files.size(), 0, 0, dryRun);
    }
    String root = table.path().toString();
    List<OrphanReport.RemovedFile> removed = new ArrayList<>();
    long referencedCount = 0;
    long young = 0;
    long unprovable = 0;
    for (FileStatus status : files) {
      String relative = status.path().toString().substring(root.length() + 1);
      if (!removable(relative)) {
        continue;
      }
      if (referenced.contains(relative)) {
        referencedCount++;
        continue;
      }
      if (status.modificationTimeMillis() >= cutoff) {
        young++;
        continue;
      }
      if (status.modificationTimeMillis() <= keepUpTo) {
        unprovable++; // an unreadable snapshot might name it
        continue;
      }
      if (!dryRun && Thread.currentThread().isInterrupted()) {
        // Stop at once (a local delete does not notice the interrupt): every file removed so far
        // was an orphan, so the table is whole; the next run removes the rest.
        throw new java.io.InterruptedIOException(
            "Orphan-file removal of "
                + table.fullName()
                + " interrupted after "
                + removedSoFar
                + " file(s)");
      }
      if (!dryRun && !table.fileIO().delete(status.path(), false)) {
        continue;
      }
      removed.add(new OrphanReport.RemovedFile(relative, status.length()));
      removedSoFar = removed.size();
    }
    if (!unreadable.isEmpty()) {
      LOG.warn(
          "Could not read {} of {}; kept {} unreferenced files",
          unreadable,
          table.fullName(),
          unprovable);
    }
    LOG.info(
        "{} {} orphan files of {} ({} files scanned)",
        dryRun ? "Found" : "Removed",
        removed.size(),
        table.fullName(),
        files.size());
    return new OrphanReport(
        removed, files.size(), referencedCount, young, dryRun, unreadable, unprovable);
  }

  /** Data files, manifests and temporary files; never schema, snapshot or hint files. */
  private static boolean removable(String relative) {
    String name = relative.substring(relative.lastIndexOf('/') + 1);
    boolean temp = name.startsWith(".") && (name.endsWith(".tmp") || name.endsWith(".inprogress"));
    if (temp) {
      return true;
    }
    if (relative.startsWith("schema/") || relative.startsWith("snapshot/")) {
      return false;
    }
    if (relative.startsWith("manifest/")) {
      return relative.indexOf('/', "manifest/".length()) < 0;
    }
    int slash = relative.lastIndexOf('/');
    String parent = slash < 0 ? "" : relative.substring(0, slash);
    String dir = parent.substring(parent.lastIndexOf('/') + 1);
    return BucketId.isDirectoryName(dir);
  }

  private void listRecursively(Path dir, List<FileStatus> out) throws IOException {
    for (FileStatus status : table.fileIO().list(dir)) {
      if (status.directory()) {
        listRecursively(status.path(), out);
      } else {
        out.add(status);
      }
    }
  }

  /**
   * Relative paths of every data file, manifest and manifest list some snapshot references; {@code
   * null} when no snapshot is visible.
   */
  private Set<String> referencedFiles() throws IOException {
    for (int attempt = 0; ; attempt++) {
      try {
        return readReferences(attempt + 1 >= MAX_REREADS);
      } catch (FileNotFoundException e) {
        if (attempt + 1 >= MAX_REREADS) {
          throw new IOException(
              "Snapshots of "
                  + table.fullName()
                  + " kept vanishing while orphan"
                  + " files were being looked for ("
                  + e.getMessage()
                  + "); run it again when"
                  + " expiration is idle.",
              e);
        }
      }
    }
  }

  private Set<String> readReferences(boolean lastAttempt) throws IOException {
    SnapshotManager snapshots = table.snapshotManager();
    FileStoreScan scan = new FileStoreScan(table);
    Set<String> referenced = new HashSet<>();
    unreadable.clear();
    keepUpTo = Long.MIN_VALUE;
    OptionalLong earliest = snapshots.earliestId();
    OptionalLong latest = snapshots.latestId();
    if (earliest.isEmpty() || latest.isEmpty()) {
      return null;
    }
    boolean afterUnreadable = false;
    boolean needLive = true;
    for (long id = earliest.getAsLong(); id <= latest.getAsLong(); id++) {
      Snapshot s;
      try {
        s = readSnapshot(id);
      } catch (DamagedFileException d) {
        snapshots.skippedDamage().note(d);
        unreadable.add("snapshot " + id + " (" + d.getMessage() + ")");
        afterUnreadable = true;
        continue;
      }
      Set<String> lists = new LinkedHashSet<>();
      lists.add(s.baseManifestList());
      s.priorDeltas().forEach(p -> lists.add(p.deltaManifestList()));
      lists.add(s.deltaManifestList());
      if (s.changelogManifestList() != null) {
        lists.add(s.changelogManifestList());
      }
      lists.forEach(l -> referenced.add("manifest/" + l));
      try {
        List<ManifestEntry> entries =
            needLive ? new ArrayList<>(scan.liveFiles(s).values()) : scan.delta(s);
        for (ManifestEntry e : entries) {
          if (e.kind() == FileKind.ADD) {
            referenced.add(
                new BucketId(e.partition(), e.bucket()).directory() + "/" + e.file().fileName());
          }
        }
        referenceChangelog(s, scan, lists, referenced);
        TagManager.addIndexReferences(table, s, referenced);
        for (String list : lists) {
          for (ManifestFileMeta m : table.manifestList().read(list)) {
            referenced.add("manifest/" + m.fileName());
          }
        }
      } catch (DamagedFileException d) {
        snapshots.skippedDamage().note(d);
        unreadable.add("snapshot " + id + " (" + d.getMessage() + ")");
        afterUnreadable = true;
        continue;
      } catch (FileNotFoundException missing) {
        if (!lastAttempt || !snapshots.log().exists(id)) {
          throw missing; // expired meanwhile (the hint lags behind): read again
        }
        // Still missing on the last reread while its snapshot is there: lost, not expired.
        MissingMetadata.note(table, List.of(s));
        unreadable.add("snapshot " + id + " (" + missing.getMessage() + " is missing)");
        afterUnreadable = true;
        continue;
      }
      needLive = false;
      if (afterUnreadable) {
        // The damaged snapshots before this one were committed before it: their files are older.
        keepUpTo = Math.max(keepUpTo, s.timeMillis());
        afterUnreadable = false;
      }
    }
    if (afterUnreadable) {
      keepUpTo = Long.MAX_VALUE; // the latest is unreadable: it may name any file
    }
    for (long id : snapshots.belowHistory(earliest.getAsLong())) {
      referenceBelowHistory(id, referenced);
    }
    TagManager tags = new TagManager(table);
    tags.addReferences(tags.tags(), referenced, referenced);
    return referenced;
  }

  /**
   * Adds what snapshot {@code id}, a file below the history (an expired id published again by a
   * late write, engine README "the real window" (d)), names, as far as it can still be read: it is
   * not history, but it is left for a person to remove, so nothing it names is removed before it
   * is. A file it names that is gone already is skipped, never an error.
   */
  private void referenceBelowHistory(long id, Set<String> referenced) throws IOException {
    Optional<Snapshot> stray = table.snapshotManager().readUncached(id);
    if (stray.isEmpty()) {
      return;
    }
    Snapshot s = stray.get();
    Set<String> lists = new LinkedHashSet<>();
    lists.add(s.baseManifestList());
    s.priorDeltas().forEach(p -> lists.add(p.deltaManifestList()));
    lists.add(s.deltaManifestList());
    try {
      referenceChangelog(s, new FileStoreScan(table), lists, referenced);
      TagManager.addIndexReferences(table, s, referenced);
    } catch (FileNotFoundException gone) {
      // Its changelog or index manifests are gone (an expiration of the history that named it
      // too): the names they held cannot be kept.
    }
    for (String list : lists) {
      referenced.add("manifest/" + list);
      try {
        for (ManifestFileMeta m : table.manifestList().read(list)) {
          referenced.add("manifest/" + m.fileName());
        }
      } catch (FileNotFoundException gone) {
        // Removed by an expiration of the history that named it too: nothing left to keep.
      }
    }
    try {
      for (ManifestEntry e : new FileStoreScan(table).delta(s)) {
        if (e.kind() == FileKind.ADD) {
          referenced.add(
              new BucketId(e.partition(), e.bucket()).directory() + "/" + e.file().fileName());
        }
      }
    } catch (FileNotFoundException gone) {
      // Its delta manifests are gone: the names they held cannot be kept.
    }
  }

  /** Adds the changelog manifest list of {@code s} to {@code lists}, its changelog files. */
  private static void referenceChangelog(
      Snapshot s, FileStoreScan scan, Set<String> lists, Set<String> referenced)
      throws IOException {
    if (s.changelogManifestList() == null) {
      return;
    }
    lists.add(s.changelogManifestList());
    for (ManifestEntry e : scan.changelog(s)) {
      referenced.add(
          new BucketId(e.partition(), e.bucket()).directory() + "/" + e.file().fileName());
    }
  }

  /**
   * Reads a snapshot of the history from the store, not a cache: an expired one must be noticed.
   */
  private Snapshot readSnapshot(long id) throws IOException {
    if (!table.snapshotManager().log().exists(id)) {
      throw new FileNotFoundException("snapshot-" + id);
    }
    return table.snapshotManager().get(id);
  }
}
