package dev.lockstep.engine.commit;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.table.CoreOptions;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimistic commit of one set of file changes as one snapshot.
 *
 * <ol>
 *   <li>Write the changes to one delta manifest and a delta list naming it, once; every attempt
 *       reuses both (a delta list's entries belong to whichever snapshot names it).
 *   <li>Read the latest snapshot L; when the changes delete files or add leveled files, check them
 *       against L's live files ({@link ConflictDetector#checkAgainstLive}).
 *   <li>Reuse L's base manifest list and name L's delta list (and L's prior deltas) as prior deltas
 *       of L+1; only every {@value #MAX_PRIOR_DELTAS}th snapshot writes a fresh base list (merging
 *       the manifests into one when there are more than {@code manifest.merge-min-count}). So most
 *       attempts write nothing but the snapshot file, which keeps the race window short.
 *   <li>Check that L still exists: a base that expired meanwhile fails the commit, since publishing
 *       L+1 could reuse an expired snapshot number. Then publish snapshot L+1 through lock-api's
 *       {@code SnapshotCommitter}. COMMITTED: done.
 *       {@code CommitStateUnknownException}: rethrown, nothing is cleaned up.
 *   <li>CONFLICT: delete a base list this attempt wrote, read only the snapshots committed since L, check their
 *       deltas ({@link ConflictDetector#checkDelta}); one of them carrying our (commit user,
 *       identifier, kind) means our commit is in already. Then retry at once after a short random
 *       wait that grows with each attempt ({@code commit.min-retry-wait} to
 *       {@code commit.max-retry-wait}), up to {@code commit.max-retries} and {@code commit.timeout}.
 *   <li>Fairness: after {@value #CLAIM_AFTER_CONFLICTS} conflicts in a row a committer claims
 *       priority; before each attempt every other committer yields briefly to a fresh claim
 *       ({@link ContentionHint}).
 * </ol>
 *
 * After a conflict or failure that is not unknown, the delta manifest is deleted; the data files are
 * never deleted here.
 */
final class CommitLoop {

  private static final Logger LOG = LoggerFactory.getLogger(CommitLoop.class);
  /** Snapshots may name this many earlier delta lists before a new base list is written. */
  static final int MAX_PRIOR_DELTAS = 8;
  /** Consecutive snapshot conflicts after which a committer claims priority. */
  static final int CLAIM_AFTER_CONFLICTS = 1;

  private final FileStoreTable table;
  private final String commitUser;
  private final CoreOptions options;
  private final SnapshotManager snapshots;
  private final FileStoreScan scan;
  private final ContentionHint hint;
  private int retries;

  CommitLoop(FileStoreTable table, String commitUser) {
    this.table = table;
    this.commitUser = commitUser;
    this.options = table.options();
    this.snapshots = table.snapshotManager();
    this.scan = table.store();
    this.hint = new ContentionHint(table.fileIO(), snapshots.log().directory(), commitUser);
  }

  int retries() {
    return retries;
  }

  /**
   * Commits {@code changes} as one snapshot of {@code kind}.
   *
   * @param overwritten for OVERWRITE, the partitions it replaces; else {@code null}
   * @param latest the snapshot to try first on, {@code null} for none (read here when absent)
   * @return the snapshot id that holds the changes
   */
  long commit(CommitKind kind, List<ManifestEntry> changes, long identifier,
      Predicate<String> overwritten, Snapshot latest) throws IOException {
    ConflictDetector detector = new ConflictDetector(table.keyCodec(), options.bucket(), changes,
        overwritten);
    if (detector.needsLiveCheck()) {
      detector.checkAgainstLive(scan.liveFiles(latest).values());
    }
    long start = System.nanoTime();
    ManifestFileMeta delta = table.manifestFile().write(changes);
    String deltaList = table.manifestList().write(List.of(delta));
    boolean keepDelta = false;
    try {
      // Writing the manifests took time: catch up before the first attempt, too.
      Optional<Long> duplicate = catchUp(latest == null ? 1 : latest.id() + 1, kind, identifier,
          detector);
      if (duplicate.isPresent()) {
        return duplicate.get();
      }
      latest = caughtUp == null ? latest : caughtUp;
      for (int attempt = 0; ; attempt++) {
        // Let a committer that lost many races go first; then catch up with what it committed.
        for (int yields = 0; yields < 3
            && hint.yieldToClaimant(attempt); yields++) {
          Optional<Long> ours = catchUp(latest == null ? 1 : latest.id() + 1, kind, identifier,
              detector);
          if (ours.isPresent()) {
            return ours.get();
          }
          latest = caughtUp == null ? latest : caughtUp;
        }
        long id = latest == null ? 1 : latest.id() + 1;
        if (latest != null && !snapshots.log().exists(latest.id())) {
          // The base expired under us: snapshot numbers past it may have expired too, and
          // publishing one again would reuse a number. Nothing is written.
          throw new CommitFailedException("Snapshot " + latest.id() + ", the base of " + kind
              + " commit " + identifier + " of " + commitUser + ", expired while the commit was"
              + " running (longer than 'snapshot.time-retained'); nothing was committed. Commit"
              + " again, and keep 'snapshot.time-retained' above the longest commit attempt.");
        }
        List<String> written = new ArrayList<>();
        Snapshot snapshot = prepare(id, kind, identifier, latest, deltaList, changes, written);
        CommitOutcome outcome;
        try {
          outcome = table.committer().commit(id, SnapshotManager.serialize(snapshot));
        } catch (CommitStateUnknownException e) {
          keepDelta = true;
          throw e;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          cleanUp(written);
          throw new InterruptedIOException("Interrupted while committing snapshot " + id);
        } catch (IOException | RuntimeException e) {
          cleanUp(written);
          throw e;
        }
        if (outcome == CommitOutcome.COMMITTED) {
          keepDelta = true;
          hint.release();
          return id;
        }
        cleanUp(written);
        retries++;
        checkLimits(attempt + 1, start, kind, identifier);
        if (attempt + 1 >= CLAIM_AFTER_CONFLICTS) {
          // Others yield to a claimant, so it retries at once.
          hint.claim(attempt + 1);
        } else {
          // Wait first, then catch up: the snapshot we rebase onto is as fresh as possible.
          pause(attempt);
        }
        Optional<Long> ours = catchUp(id, kind, identifier, detector);
        if (ours.isPresent()) {
          return ours.get();
        }
        latest = caughtUp == null ? latest : caughtUp;
        if (latest == null || latest.id() < id) {
          latest = snapshots.latest().orElse(null);
        }
      }
    } finally {
      hint.release();
      if (!keepDelta) {
        table.manifestList().deleteQuietly(deltaList);
        table.manifestFile().deleteQuietly(delta.fileName());
      }
    }
  }

  /** The newest snapshot {@link #catchUp} read, or {@code null} when there was none. */
  private Snapshot caughtUp;

  /**
   * Reads the snapshots from {@code first} on, checking each one's delta; returns the id of one that
   * holds this very commit already (a duplicate), else empty. Leaves the newest in {@link #caughtUp}.
   */
  private Optional<Long> catchUp(long first, CommitKind kind, long identifier,
      ConflictDetector detector) throws IOException {
    caughtUp = null;
    for (long next = first; ; next++) {
      Optional<Snapshot> other = snapshots.find(next);
      if (other.isEmpty()) {
        return Optional.empty();
      }
      Snapshot s = other.get();
      if (s.commitUser().equals(commitUser) && s.commitIdentifier() == identifier
          && s.commitKind() == kind) {
        LOG.info("Snapshot {} already holds {} commit {} of {}", s.id(), kind, identifier,
            commitUser);
        return Optional.of(s.id());
      }
      detector.checkDelta(s, scan.delta(s));
      caughtUp = s;
    }
  }

  private Snapshot prepare(long id, CommitKind kind, long identifier, Snapshot latest,
      String deltaList, List<ManifestEntry> changes, List<String> written)
      throws IOException {
    String baseList;
    List<Snapshot.PriorDelta> priors = new ArrayList<>();
    if (latest != null) {
      baseList = latest.baseManifestList();
      priors.addAll(latest.priorDeltas());
      priors.add(new Snapshot.PriorDelta(latest.id(), latest.deltaManifestList()));
    } else {
      baseList = null;
    }
    if (baseList == null || priors.size() > MAX_PRIOR_DELTAS) {
      // Materialize a new base list (and merge manifests when there are many): 1 attempt in
      // MAX_PRIOR_DELTAS; every other attempt writes no file but the snapshot itself.
      List<ManifestFileMeta> base = new ArrayList<>();
      if (latest != null) {
        base.addAll(scan.manifests(latest));
      }
      if (base.size() > options.manifestMergeMinCount()) {
        Map<ManifestEntry.FileId, ManifestEntry> live = new LinkedHashMap<>();
        FileStoreScan.apply(live, scan.entries(base));
        ManifestFileMeta merged = table.manifestFile().write(new ArrayList<>(live.values()));
        written.add("m:" + merged.fileName());
        base = List.of(merged);
      }
      baseList = table.manifestList().write(base);
      written.add(baseList);
      priors.clear();
    }
    long deltaRows = 0;
    for (ManifestEntry e : changes) {
      deltaRows += e.kind() == FileKind.ADD ? e.file().rowCount() : -e.file().rowCount();
    }
    long total = (latest == null ? 0 : latest.totalRecordCount()) + deltaRows;
    return new Snapshot(Snapshot.CURRENT_VERSION, id, table.schema().id(), baseList, priors,
        deltaList,
        commitUser, identifier, kind, System.currentTimeMillis(), total, deltaRows,
        UUID.randomUUID().toString());
  }

  private void cleanUp(List<String> written) {
    for (String name : written) {
      if (name.startsWith("m:")) {
        table.manifestFile().deleteQuietly(name.substring(2));
      } else {
        table.manifestList().deleteQuietly(name);
      }
    }
  }

  private void checkLimits(int attempts, long start, CommitKind kind, long identifier)
      throws CommitFailedException {
    if (attempts > options.commitMaxRetries()) {
      throw new CommitFailedException("Gave up " + kind + " commit " + identifier + " of "
          + commitUser + " on " + table.fullName() + " after " + attempts + " snapshot conflicts;"
          + " nothing was committed. Raise '" + CoreOptions.COMMIT_MAX_RETRIES + "' (now "
          + options.commitMaxRetries() + ") or commit less often.");
    }
    if (options.commitTimeout() != null
        && System.nanoTime() - start > options.commitTimeout().toNanos()) {
      throw new CommitFailedException("Gave up " + kind + " commit " + identifier + " of "
          + commitUser + " on " + table.fullName() + " after '" + CoreOptions.COMMIT_TIMEOUT
          + "' (" + options.commitTimeout() + "); nothing was committed.");
    }
  }

  private void pause(int attempt) throws InterruptedIOException {
    long min = options.commitMinRetryWait().toNanos();
    long max = options.commitMaxRetryWait().toNanos();
    long bound = Math.min(max, min << Math.min(attempt, 20));
    if (bound <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(ThreadLocalRandom.current().nextLong(bound + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted between commit attempts");
    }
  }
}
