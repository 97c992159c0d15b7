package dev.lockstep.engine.commit;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.scan.LiveFileCache;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.MissingDataFiles;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.write.CommitMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns commit messages into snapshots, for one commit user.
 *
 * <p>{@link #commit}:
 *
 * <ol>
 *   <li>When (commit user, identifier) is in a snapshot already, do nothing (exactly once across
 *       restarts).
 *   <li>New files become one APPEND snapshot. A file conflict here (only files of another bucket
 *       count in a touched partition can cause one) is a {@link CommitFailedException}. Every
 *       message must have the stored table's bucket count.
 *   <li>Compactions become one COMPACT snapshot. When a bucket's compaction conflicts with another
 *       commit, that bucket's compaction is dropped: its output files are deleted, the rest is
 *       committed, and the writer compacts the bucket again from the latest snapshot later. No
 *       exception reaches the caller for this. When the COMPACT commit fails otherwise (retries
 *       exhausted, store failure before landing) after new files were committed, the compactions
 *       are dropped the same way and the call still succeeds.
 * </ol>
 *
 * <p>The messages may hold several batches of one bucket: every message's files are committed, and
 * the compactions of a bucket are committed or dropped together (engine/README.md, "Several batches
 * in one call").
 *
 * <p>After a commit, a table that is not {@code write-only} expires old snapshots ({@link
 * SnapshotExpiration#afterCommit}; its failures are logged, never thrown).
 *
 * <p>{@link CommitStateUnknownException} (from lock-api) passes through untouched: nothing is
 * cleaned up; commit the same identifier again later and step 1 decides. Not thread-safe.
 *
 * <p>{@link #close} releases the {@code lookup} producer's cache (its local directory); a commit
 * object is usable until then.
 */
public final class TableCommit implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TableCommit.class);

  private final TableStore table;
  private final String commitUser;
  private final CommittedIdentifiers committed;
  private final LiveFileCache liveFiles;
  private long fileConflicts;
  private long indexConflicts;

  /** The {@code lookup} producer's cache of decoded data files, kept across commits. */
  private LookupCache lookupCache;

  public TableCommit(TableStore table, String commitUser) {
    this.table = table;
    this.commitUser = Objects.requireNonNull(commitUser, "commitUser");
    this.committed = new CommittedIdentifiers(table.snapshotManager(), commitUser);
    this.liveFiles = new LiveFileCache(table);
  }

  /**
   * Deletes the {@code lookup} producer's local file copies and their directory; the next {@code
   * lookup} commit starts a new cache. Idempotent; never throws.
   */
  @Override
  public void close() {
    if (lookupCache != null) {
      lookupCache.close();
      lookupCache = null;
    }
  }

  /** The {@code lookup} producer's cache, {@code null} before the first {@code lookup} commit. */
  LookupCache lookupCache() {
    return lookupCache;
  }

  public String commitUser() {
    return commitUser;
  }

  /** File conflicts met by this object so far (dropped compactions, re-planned overwrites). */
  public long fileConflicts() {
    return fileConflicts;
  }

  /**
   * Declares that this object's commit user has committed nothing to the table before now: a name
   * minted for this object (with a random UUID, say), or identifiers no earlier run can have used.
   * The exactly-once check then reads only the snapshots committed from now on, so that damage in
   * an older snapshot cannot stop this object's commits (docs/engine.md, "Damaged snapshots and the
   * exactly-once check"). Declaring it for a user that did commit before can commit a batch twice.
   *
   * @return this
   */
  public TableCommit withFreshCommitUser() throws IOException {
    committed.fresh();
    return this;
  }

  /**
   * Whether (commit user, {@code identifier}) is in a snapshot already.
   *
   * @throws dev.lockstep.engine.snapshot.DamagedFileException when an unreadable snapshot might
   *     hold it (and no readable one does): the answer cannot be told
   */
  public boolean isCommitted(long identifier) throws IOException {
    return committed.contains(identifier);
  }

  /**
   * Commits one batch of messages as APPEND and COMPACT snapshots; see the class javadoc.
   *
   * <ul>
   *   <li>Before: the messages' files exist and are not referenced by any snapshot (or the
   *       identifier is committed already).
   *   <li>After success: the new files are in the APPEND snapshot; each compaction is in the
   *       COMPACT snapshot or listed in {@link CommitResult#droppedCompactions()} (its output
   *       deleted).
   *   <li>After {@link CommitFailedException}: nothing of the batch was published; its files are
   *       intact. Commit the same messages again, or {@link #abort} them.
   *   <li>After {@code CommitStateUnknownException}: the APPEND or COMPACT snapshot may have
   *       landed; nothing was cleaned up. Commit the same identifier again: it is a no-op if it
   *       landed.
   *   <li>After another {@link IOException}: nothing of the batch was published (the store failed
   *       before landing); as after {@link CommitFailedException}.
   * </ul>
   */
  public CommitResult commit(long identifier, List<CommitMessage> messages) throws IOException {
    if (committed.contains(identifier)) {
      return CommitResult.noop(identifier);
    }
    refuseCarryingMissingFiles(p -> false);
    // Several messages may carry compactions of one bucket (batches of one writer committed in one
    // call); all of them are committed, or all dropped together.
    Map<BucketId, BucketCompactions> compactions = new LinkedHashMap<>();
    for (CommitMessage m : messages) {
      requireBuckets(m);
      if (!m.compactBefore().isEmpty() || !m.compactAfter().isEmpty()) {
        compactions
            .computeIfAbsent(new BucketId(m.partition(), m.bucket()), k -> new BucketCompactions(m))
            .add(m);
      }
    }
    CommitLoop loop = new CommitLoop(table, commitUser, liveFiles);
    long dataSnapshot = commitAppends(loop, identifier, messages);
    List<BucketId> dropped = new ArrayList<>();
    long compactSnapshot = -1;
    while (!compactions.isEmpty()) {
      List<ManifestEntry> changes = new ArrayList<>();
      compactions.values().forEach(c -> changes.addAll(c.changes()));
      try {
        compactSnapshot = loop.commit(CommitKind.COMPACT, changes, identifier, null, latest());
        // Outputs that a later batch's compaction of the same commit replaced: never referenced.
        compactions.values().forEach(BucketCompactions::deleteReplacedOutputs);
        break;
      } catch (FileConflictException e) {
        fileConflicts++;
        BucketId key = new BucketId(e.partition(), e.bucket());
        LOG.info(
            "Dropping the compaction of bucket {} of '{}' in {} ({}); it will be redone from"
                + " the latest snapshot",
            e.bucket(),
            e.partition(),
            table.fullName(),
            e.getMessage());
        compactions.remove(key).deleteOutputs();
        dropped.add(key);
      } catch (IOException e) {
        if (!(e instanceof CleanableFailure)) {
          // An unknown outcome (the COMPACT snapshot may have landed), a store error or a bug:
          // the compaction's output files may be live, so nothing is deleted.
          throw e;
        }
        // Nothing of the compaction was published (retries or time ran out, or the store failed
        // before landing): drop it like a conflict. Appended data stays committed; when nothing
        // else was committed, the caller learns of the failure.
        LOG.warn(
            "Dropping the compactions of {} in {} after a failed COMPACT commit: {}",
            compactions.keySet(),
            table.fullName(),
            e.toString());
        for (Map.Entry<BucketId, BucketCompactions> c : compactions.entrySet()) {
          c.getValue().deleteOutputs();
          dropped.add(c.getKey());
        }
        compactions.clear();
        if (dataSnapshot < 0) {
          throw e;
        }
      }
    }
    committed.add(identifier);
    SnapshotExpiration.afterCommit(table);
    return new CommitResult(
        identifier, false, dataSnapshot, compactSnapshot, dropped, loop.retries());
  }

  /**
   * Commits the messages' new files as one APPEND snapshot; -1 when there are none. With dynamic
   * buckets, an {@link IndexConflictException} (another commit assigned some of our new key hashes
   * to other buckets since our base) re-routes those keys' rows into the winners' buckets ({@link
   * KeyRerouter}) and commits again, up to {@code commit.max-retries} times; the caller's files
   * stay intact until the commit succeeds (then the rewritten originals are deleted).
   */
  private long commitAppends(CommitLoop loop, long identifier, List<CommitMessage> messages)
      throws IOException {
    List<CommitMessage> current = messages;
    KeyRerouter rerouter = new KeyRerouter(table);
    for (int round = 0; ; round++) {
      List<ManifestEntry> appends = new ArrayList<>();
      List<ManifestEntry> changelog = new ArrayList<>();
      for (CommitMessage m : current) {
        m.newFiles().forEach(f -> appends.add(entry(FileKind.ADD, m, f)));
        m.changelogFiles().forEach(f -> changelog.add(entry(FileKind.ADD, m, f)));
      }
      if (appends.isEmpty() && changelog.isEmpty()) {
        return -1;
      }
      IndexChanges index =
          table.options().dynamicBucket() ? IndexChanges.write(table, current).orElse(null) : null;
      // The changelog files go into the APPEND snapshot, through a list of their own written once
      // per round: retries reuse it; a commit that ends without publishing it deletes the list and
      // manifest (the changelog files themselves stay with the messages, as the data files do:
      // commit them again, or abort them).
      LookupChangelog lookup = null;
      if (table.changelogProducer() == ChangelogOptions.Producer.LOOKUP && !appends.isEmpty()) {
        // Computed per attempt against the exact base (LookupChangelog).
        Map<BucketId, List<DataFileMeta>> byNewBucket = new LinkedHashMap<>();
        for (ManifestEntry e : appends) {
          byNewBucket
              .computeIfAbsent(new BucketId(e.partition(), e.bucket()), b -> new ArrayList<>())
              .add(e.file());
        }
        if (lookupCache == null) {
          lookupCache = new LookupCache(table);
        }
        lookup = new LookupChangelog(table, byNewBucket, table.options().bucket(), lookupCache);
      }
      // input: every APPEND names a changelog list, an empty one too (streams then know it has no
      // changes rather than no changelog); none: no list unless the messages bring files.
      ChangelogList list =
          lookup != null
                  || (changelog.isEmpty()
                      && table.changelogProducer() != ChangelogOptions.Producer.INPUT)
              ? null
              : ChangelogList.write(table, changelog);
      loop.changelog(list == null ? null : list.name(), list == null ? null : list.records());
      loop.lookup(lookup);
      boolean keep = true;
      try {
        long id = loop.commit(CommitKind.APPEND, appends, identifier, null, latest(), index);
        rerouter.committed();
        // An earlier call may hold this commit already: then its own list is the snapshot's.
        ChangelogList mine = lookup != null ? lookup.current() : list;
        keep =
            mine == null
                || table
                    .snapshotManager()
                    .find(id)
                    .map(sn -> mine.name().equals(sn.changelogManifestList()))
                    .orElse(true);
        return id;
      } catch (IndexConflictException e) {
        keep = false;
        indexConflicts++;
        index.deleteFiles();
        if (round >= table.options().commitMaxRetries()) {
          rerouter.abandon();
          throw new CommitFailedException(
              "APPEND commit "
                  + identifier
                  + " of "
                  + commitUser
                  + " kept meeting key-hash"
                  + " assignments of other writers ("
                  + (round + 1)
                  + " re-routings, limit '"
                  + CoreOptions.COMMIT_MAX_RETRIES
                  + "'); nothing was committed: "
                  + e.getMessage());
        }
        LOG.info(
            "APPEND commit {} of {} in {}: {}; re-routing those keys into their buckets",
            identifier,
            commitUser,
            table.fullName(),
            e.getMessage());
        current = rerouter.reroute(current, e.winners());
      } catch (FileConflictException e) {
        keep = false;
        fileConflicts++;
        if (index != null) {
          index.deleteFiles();
        }
        rerouter.abandon();
        throw new CommitFailedException(
            "APPEND commit "
                + identifier
                + " of "
                + commitUser
                + " cannot be applied: "
                + e.getMessage()
                + " Nothing was committed.");
      } catch (IOException | RuntimeException e) {
        // Only a failure that published nothing frees what this round wrote; an unknown outcome
        // keeps it.
        keep = !(e instanceof CleanableFailure);
        if (e instanceof CleanableFailure) {
          if (index != null) {
            index.deleteFiles();
          }
          rerouter.abandon();
        }
        throw e;
      } finally {
        loop.changelog(null, null);
        loop.lookup(null);
        if (!keep && list != null) {
          list.deleteQuietly(table);
        }
        if (!keep && lookup != null) {
          lookup.discard();
        }
      }
    }
  }

  /** Dynamic buckets: key-hash conflicts this object resolved by re-routing rows. */
  public long indexConflicts() {
    return indexConflicts;
  }

  /**
   * Replaces partitions with the messages' new files as one OVERWRITE snapshot.
   *
   * <p>The files deleted are those live in the partitions at the snapshot the commit lands on. The
   * commit fails ({@link CommitFailedException}) when any commit other than a compaction added
   * files to those partitions after the overwrite's base snapshot (the smallest {@link
   * CommitMessage#baseSnapshotId()}, or the latest snapshot when there are no messages), so that no
   * concurrently written data is deleted unseen. A concurrent compaction of those partitions only
   * makes the commit re-plan.
   *
   * <p>The snapshot has no changelog and commits no compaction: the messages' changelog files and
   * compaction outputs are deleted once it landed (after a failure they stay with the messages, as
   * the data files do).
   *
   * @param partitionFilter which partition paths to replace; {@code null} = the partitions the
   *     messages add new files to (dynamic overwrite; a message that only compacted replaces
   *     nothing). Use {@code p -> true} for the whole table.
   */
  public CommitResult overwrite(
      long identifier, Predicate<String> partitionFilter, List<CommitMessage> messages)
      throws IOException {
    if (committed.contains(identifier)) {
      return CommitResult.noop(identifier);
    }
    List<ManifestEntry> adds = new ArrayList<>();
    List<String> touched = new ArrayList<>();
    long base = Long.MAX_VALUE;
    for (CommitMessage m : messages) {
      requireBuckets(m);
      m.newFiles().forEach(f -> adds.add(entry(FileKind.ADD, m, f)));
      if (!m.newFiles().isEmpty()) {
        // Dynamic overwrite replaces the partitions that get new data (as Paimon), not those a
        // message only compacted.
        touched.add(m.partition());
      }
      base = Math.min(base, m.baseSnapshotId());
    }
    Predicate<String> overwritten = partitionFilter != null ? partitionFilter : touched::contains;
    refuseCarryingMissingFiles(overwritten);
    CommitLoop loop = new CommitLoop(table, commitUser, liveFiles);
    long start = System.nanoTime();
    List<CommitMessage> current = messages;
    KeyRerouter rerouter = new KeyRerouter(table);
    for (int plan = 0; ; plan++) {
      Snapshot latest = latest();
      long baseId = base == Long.MAX_VALUE ? (latest == null ? 0 : latest.id()) : base;
      List<ManifestEntry> changes = new ArrayList<>();
      if (latest != null) {
        ConflictDetector early =
            new ConflictDetector(null, table.options().bucket(), List.of(), overwritten);
        for (long id = baseId + 1; id <= latest.id(); id++) {
          Snapshot s = table.snapshotManager().get(id);
          early.checkDelta(s, new FileStoreScan(table).delta(s));
        }
        for (ManifestEntry e : new FileStoreScan(table).liveFiles(latest).values()) {
          if (overwritten.test(e.partition())) {
            changes.add(
                new ManifestEntry(
                    FileKind.DELETE, e.partition(), e.bucket(), e.totalBuckets(), e.file()));
          }
        }
      }
      changes.addAll(adds);
      IndexChanges index =
          table.options().dynamicBucket() ? IndexChanges.write(table, current).orElse(null) : null;
      try {
        long id =
            loop.commit(CommitKind.OVERWRITE, changes, identifier, overwritten, latest, index);
        rerouter.committed();
        // An OVERWRITE carries no changelog: a stream reads it from its data files (-D of every
        // replaced row, then the new rows), so the messages' changelog files (changelog-producer
        // input) would never be referenced: delete them, and the outputs of the messages'
        // compactions, which an OVERWRITE does not commit (engine/README.md, "Overwrites and
        // changelog files").
        for (CommitMessage m : messages) {
          deleteFiles(m.partition(), m.bucket(), m.changelogFiles());
          deleteFiles(m.partition(), m.bucket(), m.compactAfter());
        }
        committed.add(identifier);
        SnapshotExpiration.afterCommit(table);
        return new CommitResult(identifier, false, id, -1, List.of(), loop.retries());
      } catch (IndexConflictException e) {
        // Dynamic buckets: another commit assigned some of our new key hashes meanwhile.
        indexConflicts++;
        index.deleteFiles();
        current = rerouter.reroute(current, e.winners());
        adds.clear();
        for (CommitMessage m : current) {
          m.newFiles().forEach(f -> adds.add(entry(FileKind.ADD, m, f)));
        }
        if (plan >= table.options().commitMaxRetries()) {
          rerouter.abandon();
          throw new CommitFailedException(
              "OVERWRITE commit "
                  + identifier
                  + " kept meeting key-hash assignments of other writers; nothing was"
                  + " committed: "
                  + e.getMessage());
        }
      } catch (FileConflictException e) {
        if (index != null) {
          index.deleteFiles();
        }
        fileConflicts++;
        Duration timeout = table.options().commitTimeout();
        if (plan >= table.options().commitMaxRetries()
            || (timeout != null && System.nanoTime() - start > timeout.toNanos())) {
          throw new CommitFailedException(
              "OVERWRITE commit "
                  + identifier
                  + " kept meeting"
                  + " concurrent compactions ("
                  + (plan + 1)
                  + " plans, limits '"
                  + CoreOptions.COMMIT_MAX_RETRIES
                  + "' and '"
                  + CoreOptions.COMMIT_TIMEOUT
                  + "'); nothing was committed: "
                  + e.getMessage());
        }
      } catch (IOException | RuntimeException e) {
        // As for an APPEND: only a failure that published nothing frees what this plan wrote (the
        // key-hash index files, re-routed copies); an unknown outcome keeps them.
        if (e instanceof CleanableFailure) {
          if (index != null) {
            index.deleteFiles();
          }
          rerouter.abandon();
        }
        throw e;
      }
    }
  }

  /**
   * Deletes the new files of messages that will never be committed, for example after a {@link
   * CommitFailedException} the caller gives up on. Call it only after a failure that is a {@code
   * CleanableFailure} (lock-api), never after a {@code CommitStateUnknownException} or any other
   * failure: the files may be live. Files already in a snapshot under this identifier are kept (the
   * check reads the snapshots, as {@link #commit} does).
   *
   * @return how many files were deleted
   */
  public int abort(long identifier, List<CommitMessage> messages) throws IOException {
    if (committed.contains(identifier)) {
      return 0;
    }
    int deleted = 0;
    for (CommitMessage m : messages) {
      List<DataFileMeta> files = new ArrayList<>(m.newFiles());
      files.addAll(m.compactAfter());
      files.addAll(m.changelogFiles());
      for (DataFileMeta f : files) {
        if (table
            .fileIO()
            .delete(table.bucketPath(m.partition(), m.bucket()).child(f.fileName()), false)) {
          deleted++;
        }
      }
    }
    return deleted;
  }

  /**
   * Fails (nothing committed) when the latest snapshot references a data file that a read in this
   * JVM found missing ({@link MissingDataFiles}) and that is still missing, outside the partitions
   * {@code replaced}: the new snapshot would carry the reference forward.
   */
  private void refuseCarryingMissingFiles(Predicate<String> replaced) throws IOException {
    Set<String> missing = MissingDataFiles.of(table);
    Snapshot latest = missing.isEmpty() ? null : latest();
    if (latest == null) {
      return;
    }
    for (ManifestEntry e : new FileStoreScan(table).liveFiles(latest).values()) {
      String relative =
          new BucketId(e.partition(), e.bucket()).directory() + "/" + e.file().fileName();
      if (!missing.contains(relative) || replaced.test(e.partition())) {
        continue;
      }
      dev.lockstep.fs.Path path =
          table.bucketPath(e.partition(), e.bucket()).child(e.file().fileName());
      if (table.fileIO().exists(path)) {
        MissingDataFiles.forget(table, relative);
        continue;
      }
      throw new CommitFailedException(
          "Data file "
              + path
              + " of "
              + table.fullName()
              + " is missing (a read found it gone) and snapshot "
              + latest.id()
              + " references it;"
              + " this commit of "
              + commitUser
              + " would carry the reference forward, so nothing"
              + " was committed. Restore the file from a backup, or roll the table back to a snapshot"
              + " that does not reference it (a table check lists every missing reference).");
    }
  }

  private Snapshot latest() throws IOException {
    return table.snapshotManager().latest().orElse(null);
  }

  private void requireBuckets(CommitMessage m) throws CommitFailedException {
    if (m.totalBuckets() != table.options().bucket()) {
      fileConflicts++;
      throw new CommitFailedException(
          "A message for bucket "
              + m.bucket()
              + " of '"
              + m.partition()
              + "' was written with "
              + m.totalBuckets()
              + " buckets; the table has "
              + table.options().bucket()
              + ". Rewrite the data with the current bucket count.");
    }
  }

  private static ManifestEntry entry(FileKind kind, CommitMessage m, DataFileMeta file) {
    return new ManifestEntry(kind, m.partition(), m.bucket(), m.totalBuckets(), file);
  }

  /**
   * The compactions of one bucket in one commit, from every message of that bucket (in message
   * order). A file one message's compaction writes and a later one's replaces (the writer compacts
   * as if its handed-out compactions had landed) is neither added nor deleted by the snapshot: the
   * chain A, B → C, C, D → E commits as A, B, D → E, and C is deleted once the snapshot landed.
   */
  private final class BucketCompactions {
    private final String partition;
    private final int bucket;
    private final List<CommitMessage> messages = new ArrayList<>();

    BucketCompactions(CommitMessage first) {
      this.partition = first.partition();
      this.bucket = first.bucket();
    }

    void add(CommitMessage m) {
      messages.add(m);
    }

    /** File names both written and replaced by this commit's compactions of the bucket. */
    private Set<String> replacedOutputs() {
      Set<String> written = new HashSet<>();
      messages.forEach(m -> m.compactAfter().forEach(f -> written.add(f.fileName())));
      Set<String> replaced = new HashSet<>();
      for (CommitMessage m : messages) {
        for (DataFileMeta f : m.compactBefore()) {
          if (written.contains(f.fileName())) {
            replaced.add(f.fileName());
          }
        }
      }
      return replaced;
    }

    List<ManifestEntry> changes() {
      Set<String> replaced = replacedOutputs();
      List<ManifestEntry> changes = new ArrayList<>();
      for (CommitMessage m : messages) {
        for (DataFileMeta f : m.compactBefore()) {
          if (!replaced.contains(f.fileName())) {
            changes.add(entry(FileKind.DELETE, m, f));
          }
        }
        for (DataFileMeta f : m.compactAfter()) {
          if (!replaced.contains(f.fileName())) {
            changes.add(entry(FileKind.ADD, m, f));
          }
        }
      }
      return changes;
    }

    /** After the COMPACT snapshot landed: deletes the outputs a later compaction replaced. */
    void deleteReplacedOutputs() {
      Set<String> replaced = replacedOutputs();
      if (replaced.isEmpty()) {
        return;
      }
      List<DataFileMeta> files = new ArrayList<>();
      messages.forEach(
          m ->
              m.compactAfter().stream()
                  .filter(f -> replaced.contains(f.fileName()))
                  .forEach(files::add));
      deleteFiles(partition, bucket, files);
    }

    /** The compactions are dropped: deletes every message's output files. */
    void deleteOutputs() {
      messages.forEach(m -> deleteFiles(partition, bucket, m.compactAfter()));
    }
  }

  private void deleteFiles(String partition, int bucket, List<DataFileMeta> files) {
    for (DataFileMeta f : files) {
      try {
        table.fileIO().delete(table.bucketPath(partition, bucket).child(f.fileName()), false);
      } catch (IOException e) {
        LOG.debug("Could not delete unreferenced file {}: {}", f.fileName(), e.toString());
      }
    }
  }
}
