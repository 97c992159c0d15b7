package dev.lockstep.engine.commit;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.commit.CommitAttempt;
import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMerger;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.scan.LiveFileCache;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.fs.Path;
import dev.lockstep.options.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
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
 *   <li>Read the latest snapshot L and check the changes against L's live files ({@link
 *       ConflictDetector#checkAgainstLive}; every commit, so that a partition holding files of
 *       another bucket count refuses even a pure append).
 *   <li>Reuse L's base manifest list and name L's delta list (and L's prior deltas) as prior deltas
 *       of L+1; only every {@value #MAX_PRIOR_DELTAS}th snapshot writes a fresh base list (merging
 *       small manifests and dropping deleted entries as {@link ManifestFileMerger} says). So most
 *       attempts write nothing but the snapshot file, which keeps the race window short.
 *   <li>List the snapshot directory: L must still exist (a base that expired meanwhile fails the
 *       commit, since publishing L+1 could reuse an expired snapshot number) and be the newest (a
 *       newer one is a conflict, step 5, without publishing). Then publish snapshot L+1, which
 *       names L's commit id as its parent, through lock-api's {@code SnapshotCommitter}; under the
 *       {@code lock} strategy the snapshot records the lease's fencing token ({@link
 *       Snapshot#fencing()}). COMMITTED: prove the id fresh ({@link #verifyFresh}): done; or, when
 *       the id had existed and expired while we were paused before publishing, withdraw our file
 *       and fail ({@link CommitFailedException}, nothing committed); or, when it cannot be told,
 *       {@code CommitStateUnknownException}. {@code CommitStateUnknownException}: rethrown, nothing
 *       is cleaned up. {@code FencedCommitException} (our lease lapsed and a newer holder
 *       committed): rethrown after deleting what the commit wrote, like any failure before landing;
 *       not retried. Which failures let the commit's manifests go is decided by one test, {@code
 *       instanceof CleanableFailure} (lock-api): a failure that says nothing was published ({@link
 *       CommitFailedException}, {@link FileConflictException}, {@link CommitInterruptedException},
 *       lock-api's {@code SnapshotNotPublishedException}, {@code LockNotAcquiredException}, {@code
 *       FencedCommitException}); every other failure, an unknown outcome above all but also a store
 *       error or a bug, keeps them (orphan-file removal collects them later), whatever the order of
 *       the {@code catch} clauses.
 *   <li>Under the {@code lock} strategy, steps 2 to 4 of each attempt run under one lease of the
 *       table's lock ({@code SnapshotCommitter.holding}): having got the lease, the attempt first
 *       catches up with the snapshots committed since L (those of the holder it waited for) and
 *       builds on the newest. Without this, an attempt that had to wait for the lock almost always
 *       lost to the holder it waited for (that holder was publishing L+1), and a committer among
 *       several in a tight loop could lose {@code commit.max-retries} times in a row. So under a
 *       lock only a writer outside the lock, or a holder whose lease lapsed, makes an attempt
 *       conflict; the lock service's queue gives the turns. Lock-free, committers of one JVM do the
 *       same under the table's in-process turn ({@link InProcessTurns}, option {@code
 *       commit.in-process-turns}): they do not race each other; a committer in another process (or
 *       one that did not get the turn in time) still races through the store's primitive.
 *   <li>CONFLICT (another commit took L+1): delete a base list this attempt wrote, then choose the
 *       wait ({@link RetryPolicy}, docs/engine.md#design-3-optimistic-commit: "retry at once with
 *       jitter; exponential waits only while a lock is contended"):
 *       <ul>
 *         <li>lock-free strategy, or the lock was free when this attempt asked for it: claim
 *             priority (step 7) and retry as soon as the winner's snapshot is readable (at once
 *             when it is; {@link #awaitWinner}), with no blind wait;
 *         <li>the lock was held by another committer when this attempt asked for it ({@code
 *             CommitAttempt.lockContended()}, observed by lock-api): drop any claim and back off,
 *             {@code commit.min-retry-wait} doubling with each such conflict in a row up to {@code
 *             commit.max-retry-wait}, with jitter.
 *       </ul>
 *       After the wait, read only the snapshots committed since L and check their deltas ({@link
 *       ConflictDetector#checkDelta}); one of them carrying our (commit user, identifier, kind)
 *       means our commit is in already. Otherwise go to step 2 on the newest of them.
 *   <li>Limits, checked after each conflict: {@code commit.max-retries} (default {@value
 *       CoreOptions#COMMIT_MAX_RETRIES_DEFAULT}, docs/architecture.md#design-5) and {@code
 *       commit.timeout} (default none). With fair turns a commit loses about one race per other
 *       committer, so the count must exceed the number of committers racing in a tight loop. Either
 *       raises {@link CommitFailedException} saying how long the commit ran, how many conflicts it
 *       met (and how many under a contended lock) and how far the table moved meanwhile; nothing is
 *       committed and the data files are intact. Every snapshot conflict is another commit that
 *       landed, so all of them count; a commit that cannot land for a reason other than a lost race
 *       (a lock that cannot be had, a store error) fails through its own exception, not through
 *       these limits.
 *   <li>Fairness ({@link ContentionHint}): after an uncontended conflict a committer claims
 *       priority with its losses so far; before each attempt every other committer yields briefly
 *       to a fresh claim with at least its own losses. Measured with 8 committers in a tight loop
 *       on 2 cores: at most 7–9 conflicts per commit with the claim, 37–53 without.
 * </ol>
 *
 * After a conflict or failure that is not unknown, the delta manifest is deleted; the data files
 * are never deleted here.
 */
final class CommitLoop {

  private static final Logger LOG = LoggerFactory.getLogger(CommitLoop.class);

  /** Snapshots may name this many earlier delta lists before a new base list is written. */
  static final int MAX_PRIOR_DELTAS = 8;

  private final TableStore table;
  private final String commitUser;
  private final CoreOptions options;
  private final SnapshotManager snapshots;
  private final FileStoreScan scan;
  private final LiveFileCache live;
  private final ContentionHint hint;
  private final List<RetryPolicy.Pause> pauses = new ArrayList<>();
  private int retries;

  /** This table's in-process turn ({@link InProcessTurns}), or {@code null} when turned off. */
  private final InProcessTurns.Turn turn;

  /** Attempts made in the in-process turn, and attempts that waited it out (for tests). */
  private int turnsTaken;

  private int turnsMissed;

  CommitLoop(TableStore table, String commitUser) {
    this(table, commitUser, new LiveFileCache(table));
  }

  /**
   * @param live the committer's live files, kept from commit to commit (see {@link LiveFileCache})
   */
  CommitLoop(TableStore table, String commitUser, LiveFileCache live) {
    this.live = live;
    this.table = table;
    this.commitUser = commitUser;
    this.options = table.options();
    this.snapshots = table.snapshotManager();
    this.scan = new FileStoreScan(table);
    this.hint = new ContentionHint(table.fileIO(), snapshots.log().directory(), commitUser);
    this.turn =
        options.commitInProcessTurns()
            ? InProcessTurns.of(snapshots.log().directory().toString())
            : null;
  }

  /** Attempts this loop made holding the in-process turn (for tests). */
  int turnsTaken() {
    return turnsTaken;
  }

  /** Attempts that did not get the in-process turn within its bound and raced (for tests). */
  int turnsMissed() {
    return turnsMissed;
  }

  int retries() {
    return retries;
  }

  /** The changelog manifest list the next {@link #commit}'s snapshot names (null: none). */
  private String changelogList;

  private Long changelogRecords;

  /** Computes the changelog of each attempt against its base ({@code lookup}); null: none. */
  private LookupChangelog lookup;

  void lookup(LookupChangelog lookup) {
    this.lookup = lookup;
  }

  /**
   * Names {@code list} (holding {@code records} changelog rows) as the changelog of the snapshot
   * the next {@link #commit} publishes; {@code null} for none. The caller owns the list's files.
   */
  void changelog(String list, Long records) {
    this.changelogList = list;
    this.changelogRecords = records;
  }

  /** The waits chosen after each snapshot conflict so far, in order (for tests). */
  List<RetryPolicy.Pause> pauses() {
    return List.copyOf(pauses);
  }

  /**
   * Commits {@code changes} as one snapshot of {@code kind}.
   *
   * @param overwritten for OVERWRITE, the partitions it replaces; else {@code null}
   * @param latest the snapshot to try first on, {@code null} for none (read here when absent)
   * @return the snapshot id that holds the changes
   */
  long commit(
      CommitKind kind,
      List<ManifestEntry> changes,
      long identifier,
      Predicate<String> overwritten,
      Snapshot latest)
      throws IOException {
    return commit(kind, changes, identifier, overwritten, latest, null);
  }

  /** The key-hash assignments of the running commit (dynamic buckets), else {@code null}. */
  private IndexChanges index;

  /**
   * As {@link #commit(CommitKind, List, long, Predicate, Snapshot)}, with the key-hash assignments
   * {@code index} of a dynamic-bucket commit ({@code null}: none): they are checked against every
   * snapshot the commit is tried on ({@link IndexChanges#check}, {@link IndexConflictException}),
   * and the snapshot's index manifest adds their files to its base's.
   */
  long commit(
      CommitKind kind,
      List<ManifestEntry> changes,
      long identifier,
      Predicate<String> overwritten,
      Snapshot latest,
      IndexChanges index)
      throws IOException {
    this.index = index;
    try {
      return commitChanges(kind, changes, identifier, overwritten, latest);
    } finally {
      this.index = null;
    }
  }

  /**
   * Whether an attempt of the running commit has begun publishing its snapshot (set right before
   * the publish, cleared when the attempt is known to have lost): outside that, nothing of the
   * commit has landed, and a failure an interrupt caused frees its delta (commitChanges).
   */
  private boolean inFlight;

  /** The deletion vectors of the running commit (primary-key tables), else {@code null}. */
  private DeletionVectorMaintainer vectors;

  private long commitChanges(
      CommitKind kind,
      List<ManifestEntry> changes,
      long identifier,
      Predicate<String> overwritten,
      Snapshot latest)
      throws IOException {
    // Deletion vectors are computed per attempt against its exact base (DeletionVectorMaintainer).
    vectors = table.primaryKeyTable() ? new DeletionVectorMaintainer(table, changes) : null;
    ConflictDetector detector =
        new ConflictDetector(table.keyCodec(), options.bucket(), changes, overwritten);
    // Every commit, appends included: a file of a touched partition with another bucket count
    // (written before this commit's base) would put a key of a primary-key table in two buckets.
    detector.checkAgainstLive(live.index(latest));
    if (index != null) {
      index.check(latest);
    }
    long start = System.nanoTime();
    ManifestFileMeta delta = table.manifestFile().write(changes);
    String deltaList;
    try {
      deltaList = table.manifestList().write(List.of(delta));
    } catch (IOException | RuntimeException e) {
      // No list names the delta yet (the list's write failed, or was interrupted, before it was
      // published): the delta is nobody's.
      table.manifestFile().deleteQuietly(delta.fileName());
      throw unpublished(e, "writing the delta manifest list");
    }
    // The delta is deleted when the commit ends without publishing it: a duplicate found, or a
    // CleanableFailure. Any other failure (an unknown outcome above all) keeps it.
    boolean published = false;
    // Whether an attempt's snapshot may be out there: from its publish on, until it is known to
    // have lost (CONFLICT). Outside that, nothing of this commit has landed, so a failure that an
    // interrupt caused (reading while catching up, waiting) frees the delta like any other
    // CleanableFailure.
    inFlight = false;
    Throwable failure = null;
    try {
      // Writing the manifests took time: catch up before the first attempt, too.
      Optional<Long> duplicate =
          catchUp(latest, latest == null ? 1 : latest.id() + 1, kind, identifier, detector);
      if (duplicate.isPresent()) {
        return duplicate.get();
      }
      latest = caughtUp == null ? latest : caughtUp;
      RetryPolicy policy = RetryPolicy.of(options);
      // Under a lock, each attempt holds the lease from its catch-up to its publish: a commit that
      // waited for the lock rebases on what the holder committed instead of losing to it.
      boolean locked = table.committer().locked();
      long firstTried = -1;
      int contended = 0;
      for (int attempt = 0; ; attempt++) {
        // Let a committer that lost many races go first; then catch up with what it committed.
        // (Not under a lock: the lock service orders the committers.)
        for (int yields = 0; !locked && yields < 3 && hint.yieldToClaimant(attempt); yields++) {
          Optional<Long> ours =
              catchUp(latest, latest == null ? 1 : latest.id() + 1, kind, identifier, detector);
          if (ours.isPresent()) {
            return ours.get();
          }
          latest = caughtUp == null ? latest : caughtUp;
        }
        Snapshot base = latest;
        Try tried;
        try {
          if (locked) {
            tried =
                table
                    .committer()
                    .holding(
                        () ->
                            tryOnce(
                                kind,
                                identifier,
                                detector,
                                base,
                                true,
                                delta.fileName(),
                                deltaList,
                                changes));
          } else if (turn != null
              && turn.take(
                  options.commitMaxRetryWait().toNanos(),
                  turnBudgetNanos(start),
                  options.commitMaxRetries() + 1)) {
            // Committers of this JVM take turns: in its turn the attempt catches up with what the
            // holders before it committed and builds on that, as under a lease (step 5).
            try {
              turnsTaken++;
              tried =
                  tryOnce(
                      kind, identifier, detector, base, true, delta.fileName(), deltaList, changes);
            } finally {
              turn.release();
            }
          } else {
            if (turn != null) {
              turnsMissed++; // not in time: race as without turns
            }
            tried =
                tryOnce(
                    kind, identifier, detector, base, false, delta.fileName(), deltaList, changes);
          }
        } catch (InterruptedException e) {
          // Only while waiting for the lease or the turn: nothing was written.
          Thread.currentThread().interrupt();
          throw new CommitInterruptedException(
              "Interrupted while waiting for the lock of "
                  + table.fullName()
                  + "; nothing was committed");
        }
        if (tried.duplicate() >= 0) {
          if (tried.landed()) {
            published = true; // later snapshots name this commit's delta
          }
          return tried.duplicate();
        }
        latest = tried.base();
        long id = tried.id();
        List<String> written = tried.written();
        CommitAttempt outcome = tried.outcome();
        if (outcome.outcome() == CommitOutcome.COMMITTED) {
          // From here on a published file names the delta: an unknown outcome keeps it (it is no
          // CleanableFailure); a withdrawn snapshot fails with one (nothing names the delta then).
          confirmFresh(
              id,
              tried.snapshot().commitId(),
              latest,
              kind,
              identifier,
              written,
              delta.fileName(),
              deltaList);
          published = true;
          hint.release();
          return id;
        }
        inFlight = false; // CONFLICT: another snapshot holds the id; ours did not land
        cleanUp(written);
        retries++;
        if (outcome.lockContended()) {
          contended++;
        }
        if (firstTried < 0) {
          firstTried = id;
        }
        checkLimits(start, attempt + 1, contended, firstTried, id, kind, identifier);
        RetryPolicy.Pause pause = policy.afterConflict(outcome.lockContended());
        pauses.add(pause);
        if (pause.backoff() || locked) {
          // The lock service orders the waiters; nobody should yield to a claimant that sleeps.
          hint.release();
        } else {
          hint.claim(attempt + 1);
        }
        // Wait first, then catch up: the snapshot we rebase onto is as fresh as possible. A
        // committer that lost a free race waits for the winner's snapshot to be readable (no
        // blind wait: at once when it is); only a contended lock backs off.
        if (pause.backoff()) {
          sleep(pause, start);
        } else {
          awaitWinner(id, start);
        }
        Optional<Long> ours = catchUp(latest, id, kind, identifier, detector);
        if (ours.isPresent()) {
          return ours.get();
        }
        latest = caughtUp == null ? latest : caughtUp;
        if (latest == null || latest.id() < id) {
          // Snapshot id is gone already (expired right after it landed): rebase on the newest one.
          // The deltas in between cannot be read any more, so check against its live files.
          Snapshot newest = snapshots.latest().orElse(null);
          if (newest != null && (latest == null || newest.id() > latest.id())) {
            if (overwritten != null) {
              throw new CommitFailedException(
                  "The snapshots committed after the base of "
                      + kind
                      + " commit "
                      + identifier
                      + " of "
                      + commitUser
                      + " expired before it"
                      + " could check them (they may have added files to the overwritten partitions);"
                      + " nothing was committed. Run the overwrite again.");
            }
            detector.checkAgainstLive(live.liveFiles(newest, detector.partitions()));
            if (index != null) {
              index.check(newest);
            }
            latest = newest;
          }
        }
      }
    } catch (Throwable t) {
      failure = t;
      if (!inFlight && t instanceof IOException io && !(t instanceof CleanableFailure)) {
        IOException cleanable = unpublished(io, "catching up before publishing");
        failure = cleanable;
        throw cleanable;
      }
      throw t;
    } finally {
      hint.release();
      if (!published && (failure == null || failure instanceof CleanableFailure)) {
        table.manifestList().deleteQuietly(deltaList);
        table.manifestFile().deleteQuietly(delta.fileName());
      }
    }
  }

  /**
   * What one attempt came to: {@code duplicate} ({@code >= 0}) when a snapshot holds this commit
   * already; else the {@code base} it was built on, the {@code id} tried, the snapshot published
   * (or {@code null} when the id was taken before publishing) and the files it wrote.
   */
  private record Try(
      long duplicate,
      Snapshot base,
      long id,
      Snapshot snapshot,
      List<String> written,
      CommitAttempt outcome,
      boolean landed) {

    Try(
        long duplicate,
        Snapshot base,
        long id,
        Snapshot snapshot,
        List<String> written,
        CommitAttempt outcome) {
      this(duplicate, base, id, snapshot, written, outcome, false);
    }

    /** A snapshot of an earlier commit call holds this commit: this call's delta is unused. */
    static Try duplicate(long id) {
      return new Try(id, null, -1, null, List.of(), null, false);
    }

    /** This attempt's snapshot landed (later snapshots were built on it): keep the delta. */
    static Try landed(long id) {
      return new Try(id, null, -1, null, List.of(), null, true);
    }
  }

  /**
   * One attempt on {@code latest} (steps 4 and 5 of the class javadoc). With {@code rebase} (under
   * the lock's lease) it first catches up with the snapshots committed since {@code latest}: no
   * other holder can commit until it publishes, so it wins unless a writer outside the lock (or a
   * holder that lost its lease) got in.
   */
  private Try tryOnce(
      CommitKind kind,
      long identifier,
      ConflictDetector detector,
      Snapshot latest,
      boolean rebase,
      String deltaManifest,
      String deltaList,
      List<ManifestEntry> changes)
      throws IOException {
    if (rebase) {
      Optional<Long> ours =
          catchUp(latest, latest == null ? 1 : latest.id() + 1, kind, identifier, detector);
      if (ours.isPresent()) {
        return Try.duplicate(ours.get());
      }
      latest = caughtUp == null ? latest : caughtUp;
    }
    long id = latest == null ? 1 : latest.id() + 1;
    // Right before publishing: the base must still exist and be the first snapshot ever to
    // have its id (an id published again after it expired always has a newer snapshot above
    // it), which is what the check after publishing builds on (verifyFresh).
    List<String> written = new ArrayList<>();
    if (!baseIsCurrent(latest, kind, identifier)) {
      // Another commit took our id already (or the table moved on): lose the race without
      // publishing anything.
      return new Try(
          -1, latest, id, null, written, new CommitAttempt(CommitOutcome.CONFLICT, false));
    }
    Snapshot snapshot;
    try {
      snapshot = prepare(id, kind, identifier, latest, deltaList, changes, written);
    } catch (IOException | RuntimeException e) {
      // Nothing is published before the snapshot: what this attempt wrote is nobody's.
      cleanUp(written);
      throw unpublished(e, "writing the manifests of snapshot " + id);
    }
    try {
      // From here on this attempt's snapshot may land (until the loop learns of a CONFLICT).
      inFlight = true;
      // Under a lock the snapshot records the lease's fencing token; lock-free commits none.
      CommitAttempt outcome =
          table
              .committer()
              .commit(
                  id,
                  fencing ->
                      SnapshotManager.serialize(
                          snapshot.withFencing(
                              fencing
                                  .map(f -> new Snapshot.Fencing(f.lock(), f.token()))
                                  .orElse(null))));
      return new Try(-1, latest, id, snapshot, written, outcome);
    } catch (CommitStateUnknownException e) {
      // lock-api cannot tell whether snapshot id is ours (say: it landed, lost its answer, was
      // built on and expired before the read-back). Snapshots built on ours name its delta.
      if (builtOn(id, deltaManifest, deltaList)) {
        LOG.info(
            "Snapshot {} of {} holds {} commit {} of {}: later snapshots were built on it",
            id,
            table.fullName(),
            kind,
            identifier,
            commitUser);
        return Try.landed(id);
      }
      throw e;
    } catch (InterruptedException e) {
      // Publishers throw it only while nothing is written (else: CommitStateUnknownException).
      Thread.currentThread().interrupt();
      cleanUp(written);
      throw new CommitInterruptedException(
          "Interrupted while committing snapshot " + id + "; nothing was committed");
    } catch (IOException | RuntimeException e) {
      // Only a failure that says nothing was published lets the attempt's files go; whatever else
      // failed (an unknown outcome, a store error, a bug) keeps them for orphan-file removal.
      if (e instanceof CleanableFailure) {
        cleanUp(written);
      }
      throw e;
    }
  }

  /**
   * Whether a snapshot newer than {@code id} was built on this commit's snapshot {@code id}: it
   * names this commit's delta list as the prior delta of {@code id}, or its base manifest list
   * holds this commit's delta manifest (names unique to this commit). Only a snapshot that was the
   * newest is ever built on, so ours was then part of the history.
   */
  private boolean builtOn(long id, String deltaManifest, String deltaList) {
    try {
      for (long next : snapshots.log().listIds()) {
        if (next <= id) {
          continue;
        }
        Optional<Snapshot> s = snapshots.readUncached(next);
        if (s.isEmpty()) {
          continue;
        }
        if (s.get().priorDeltas().contains(new Snapshot.PriorDelta(id, deltaList))) {
          return true;
        }
        if (s.get().baseManifestList() != null) {
          for (ManifestFileMeta m : table.manifestList().read(s.get().baseManifestList())) {
            if (m.fileName().equals(deltaManifest)) {
              return true;
            }
          }
        }
      }
    } catch (IOException e) {
      LOG.debug("Could not look for snapshots built on snapshot {}: {}", id, e.toString());
    }
    return false;
  }

  /** The newest snapshot {@link #catchUp} read, or {@code null} when there was none. */
  private Snapshot caughtUp;

  /**
   * Reads the snapshots from {@code first} on, checking each one's delta; returns the id of one
   * that holds this very commit already (a duplicate), else empty. Leaves the newest in {@link
   * #caughtUp}.
   */
  private Optional<Long> catchUp(
      Snapshot base, long first, CommitKind kind, long identifier, ConflictDetector detector)
      throws IOException {
    caughtUp = null;
    Snapshot previous = base != null && base.id() == first - 1 ? base : null;
    for (long next = first; ; next++) {
      Optional<Snapshot> other = snapshots.find(next);
      if (other.isEmpty()) {
        return Optional.empty();
      }
      Snapshot s = other.get();
      if (previous == null && !inHistory(s)) {
        // No base to link it to (the caller found no latest snapshot: the table was empty, or its
        // newest snapshot expired between the id and the read): a snapshot below the history, an
        // expired id published again by a commit whose outcome stayed unknown (engine README, "the
        // real window" (d)), may hold this very commit, but nothing reads it. Never count it as
        // landed, never build on it.
        throw new CommitFailedException(
            "Snapshot "
                + s.id()
                + " of "
                + table.fullName()
                + " is not part of the table's history (an expired snapshot id published again by a"
                + " commit of unknown outcome); nothing of "
                + kind
                + " commit "
                + identifier
                + " of "
                + commitUser
                + " was committed. Commit it again.");
      }
      if (previous != null && !previous.isParentOf(s)) {
        // Not the history we built on: one of the two is an id published again after it expired,
        // whose committer has not withdrawn it yet (see verifyFresh). Never build on it.
        throw new CommitFailedException(
            "Snapshot "
                + s.id()
                + " of "
                + table.fullName()
                + " was not built on snapshot "
                + previous.id()
                + " (an expired snapshot id was"
                + " published again and is being withdrawn); nothing of "
                + kind
                + " commit "
                + identifier
                + " of "
                + commitUser
                + " was committed. Commit it again.");
      }
      Snapshot below = previous;
      previous = s;
      if (s.commitUser().equals(commitUser)
          && s.commitIdentifier() == identifier
          && s.commitKind() == kind) {
        if (below != null && !stillThere(below) && !inHistory(s)) {
          // Linked to a base that expired meanwhile: an earlier attempt of this commit, paused on
          // the same base, may have published this id again after its first holder expired.
          throw new CommitFailedException(
              "Snapshot "
                  + s.id()
                  + " of "
                  + table.fullName()
                  + " holds "
                  + kind
                  + " commit "
                  + identifier
                  + " of "
                  + commitUser
                  + " but is not"
                  + " part of the table's history (an expired snapshot id published again by an"
                  + " attempt of unknown outcome); nothing of it was committed. Commit it again.");
        }
        LOG.info(
            "Snapshot {} already holds {} commit {} of {}", s.id(), kind, identifier, commitUser);
        return Optional.of(s.id());
      }
      detector.checkDelta(s, scan.delta(s));
      if (index != null) {
        index.check(s);
      }
      caughtUp = s;
    }
  }

  /**
   * Whether {@code s}, read without a base to link it to, is part of the table's history: the
   * snapshot after it was built on it, or it is the newest listed. A snapshot below the history is
   * neither: nothing is ever built on it, and the snapshots above it were built on the earlier
   * holder of its id (or that one's successor expired too, leaving a gap above it).
   */
  private boolean stillThere(Snapshot s) throws IOException {
    Optional<Snapshot> now = snapshots.readUncached(s.id());
    return now.isPresent() && now.get().commitId().equals(s.commitId());
  }

  private boolean inHistory(Snapshot s) throws IOException {
    for (int round = 0; round < 3; round++) {
      Optional<Snapshot> next = snapshots.readUncached(s.id() + 1);
      if (next.isPresent()) {
        return s.isParentOf(next.get());
      }
      List<Long> listed = snapshots.log().listIds();
      long newest = listed.isEmpty() ? 0 : listed.get(listed.size() - 1);
      if (newest <= s.id()) {
        // The newest (or gone meanwhile, which only a snapshot that was built on does).
        return true;
      }
      if (newest > s.id() + 1 && snapshots.readUncached(s.id() + 1).isEmpty()) {
        // A gap right above it while newer snapshots exist: in a history, s + 1 expires only
        // after s did (ascending order). Unless s is gone by now, it is below the history.
        return snapshots.readUncached(s.id()).isEmpty();
      }
      // s + 1 appeared between the read and the listing: read it again.
    }
    return false;
  }

  private Snapshot prepare(
      long id,
      CommitKind kind,
      long identifier,
      Snapshot latest,
      String deltaList,
      List<ManifestEntry> changes,
      List<String> written)
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
      // Merge small manifests (and drop deleted entries once they add up): ManifestFileMerger.
      List<String> merged = new ArrayList<>();
      base =
          new ManifestFileMerger(
                  table.manifestFile(),
                  options.manifestTargetFileSize(),
                  options.manifestMergeMinCount(),
                  options.manifestFullCompactionThresholdSize())
              .merge(base, merged);
      merged.forEach(name -> written.add("m:" + name));
      baseList = table.manifestList().write(base);
      written.add(baseList);
      priors.clear();
    }
    if (lookup != null) {
      ChangelogList list = lookup.forBase(latest);
      changelogList = list == null ? null : list.name();
      changelogRecords = list == null ? null : list.records();
    }
    long deltaRows = 0;
    for (ManifestEntry e : changes) {
      deltaRows += e.kind() == FileKind.ADD ? e.file().rowCount() : -e.file().rowCount();
    }
    long total = (latest == null ? 0 : latest.totalRecordCount()) + deltaRows;
    String indexManifest = indexManifest(latest, written);
    if (vectors != null) {
      indexManifest = vectors.indexManifest(latest, indexManifest, id, written, live);
    }
    return new Snapshot(
        Snapshot.CURRENT_VERSION,
        id,
        table.schema().id(),
        baseList,
        priors,
        deltaList,
        commitUser,
        identifier,
        kind,
        System.currentTimeMillis(),
        total,
        deltaRows,
        UUID.randomUUID().toString(),
        null,
        latest == null ? null : latest.commitId(),
        changelogList,
        changelogList == null ? null : changelogRecords,
        indexManifest);
  }

  /** Index files of one (partition, bucket) above which a commit touching it merges them. */
  static final int MAX_INDEX_FILES_PER_BUCKET = 16;

  /**
   * The index manifest of the snapshot built on {@code latest}: the latest one when this commit
   * assigns no key hashes; else a new one, the latest's entries plus this commit's files, with the
   * earlier files of a bucket this commit adds to merged into one when there are {@value
   * #MAX_INDEX_FILES_PER_BUCKET} or more (so a bucket has at most that many files).
   */
  private String indexManifest(Snapshot latest, List<String> written) throws IOException {
    String base = latest == null ? null : latest.indexManifest();
    if (index == null || index.files().isEmpty()) {
      return base;
    }
    Map<String, List<IndexFileMeta>> byBucket = new LinkedHashMap<>();
    List<IndexFileMeta> otherKinds = new ArrayList<>();
    for (IndexFileMeta e : table.indexManifest().read(base)) {
      if (!IndexFileMeta.HASH.equals(e.indexType())) {
        otherKinds.add(e); // deletion vectors: kept as they are
        continue;
      }
      byBucket.computeIfAbsent(e.partition() + "/" + e.bucket(), k -> new ArrayList<>()).add(e);
    }
    java.util.Set<String> touched = new java.util.HashSet<>();
    for (IndexFileMeta e : index.files()) {
      touched.add(e.partition() + "/" + e.bucket());
    }
    // This commit's own files are named as they are (never merged: they must stay referenced).
    List<IndexFileMeta> entries = new ArrayList<>(index.files());
    entries.addAll(otherKinds);
    for (Map.Entry<String, List<IndexFileMeta>> bucket : byBucket.entrySet()) {
      List<IndexFileMeta> files = bucket.getValue();
      if (files.size() < MAX_INDEX_FILES_PER_BUCKET || !touched.contains(bucket.getKey())) {
        entries.addAll(files);
        continue;
      }
      int total = 0;
      List<int[]> parts = new ArrayList<>();
      for (IndexFileMeta f : files) {
        int[] hashes = table.indexManifest().readHashes(f.fileName());
        parts.add(hashes);
        total += hashes.length;
      }
      int[] all = new int[total];
      int at = 0;
      for (int[] part : parts) {
        System.arraycopy(part, 0, all, at, part.length);
        at += part.length;
      }
      java.util.Arrays.sort(all);
      int unique = 0;
      for (int i = 0; i < all.length; i++) {
        if (i == 0 || all[i] != all[i - 1]) {
          all[unique++] = all[i];
        }
      }
      IndexFileMeta first = files.get(0);
      IndexFileMeta merged =
          table.indexManifest().writeHashes(first.partition(), first.bucket(), all, unique);
      written.add("i:" + merged.fileName());
      entries.add(merged);
    }
    String name = table.indexManifest().write(entries);
    written.add("i:" + name);
    return name;
  }

  /**
   * Right before publishing on {@code base}: true when the base still exists and was the first
   * snapshot ever to have its id, false when a newer snapshot exists already (another commit took
   * our id: a conflict, without publishing).
   *
   * <p>Cheap path (one read): the base's parent, snapshot {@code base - 1}, still exists with the
   * commit id the base names. Expiration deletes in ascending order, so the base exists too; and a
   * base published under an id that had existed would have a parent that expired before it was
   * published. Otherwise (parent expired or unreadable, an old file without the link, or snapshot
   * 1), one listing: the base must be listed and be the newest.
   *
   * @throws CommitFailedException when the base expired meanwhile: nothing is published
   */
  private boolean baseIsCurrent(Snapshot base, CommitKind kind, long identifier)
      throws IOException {
    if (base != null && base.id() > 1 && base.parentCommitId() != null) {
      Optional<Snapshot> parent;
      try {
        parent = snapshots.readUncached(base.id() - 1);
      } catch (dev.lockstep.engine.snapshot.DamagedFileException damaged) {
        // An unreadable parent proves nothing either way: the listing below decides, as for an
        // expired parent, so that damage in an old snapshot does not stop commits.
        snapshots.skippedDamage().note(damaged);
        parent = Optional.empty();
      }
      if (parent.isPresent() && parent.get().commitId().equals(base.parentCommitId())) {
        return true;
      }
    }
    List<Long> listed = snapshots.log().listIds();
    if (base != null && !listed.contains(base.id())) {
      // The base expired under us: snapshot numbers past it may have expired too, and
      // publishing one again would reuse a number. Nothing is written.
      throw new CommitFailedException(
          "Snapshot "
              + base.id()
              + ", the base of "
              + kind
              + " commit "
              + identifier
              + " of "
              + commitUser
              + ", expired while the commit was"
              + " running (longer than 'snapshot.time-retained'); nothing was committed. Commit"
              + " again, and keep 'snapshot.time-retained' above the longest commit attempt.");
    }
    long newest = listed.isEmpty() ? 0 : listed.get(listed.size() - 1);
    return newest == (base == null ? 0 : base.id());
  }

  /**
   * Returns when snapshot {@code id}, which this commit just published, is fresh ({@link
   * #verifyFresh}); withdraws it and throws {@link CommitFailedException} when its id had existed;
   * throws {@code CommitStateUnknownException} when that cannot be told (nothing withdrawn). The
   * check is short and must finish: an interrupt waits until it has (a snapshot left under an
   * expired id would stay below the history for good).
   */
  private void confirmFresh(
      long id,
      String ours,
      Snapshot base,
      CommitKind kind,
      long identifier,
      List<String> written,
      String deltaManifest,
      String deltaList)
      throws IOException {
    boolean interrupted = Thread.interrupted();
    try {
      Freshness fresh = null;
      for (int check = 1; fresh == null; check++) {
        try {
          fresh = verifyFresh(id, ours, base, deltaManifest, deltaList);
        } catch (IOException e) {
          if (check >= 3) {
            // Published, but the check could not read the store: never "nothing happened".
            throw new CommitStateUnknownException(snapshots.log().snapshotPath(id), e);
          }
        }
      }
      if (fresh == Freshness.UNKNOWN) {
        throw new CommitStateUnknownException(
            snapshots.log().snapshotPath(id),
            new IOException(
                "Snapshot "
                    + id
                    + " was published, but whether the table's history"
                    + " continues from it cannot be told (a snapshot file without the"
                    + " 'parentCommitId' field, from an older writer, follows it, or the store kept"
                    + " changing); commit the same identifier again later"));
      }
      if (fresh == Freshness.REUSED_GONE) {
        // Our file under an id that had existed was deleted by an expiration that still had the
        // id's first holder in its plan: nothing of ours is in the history, nothing to withdraw.
        cleanUp(written);
        LOG.warn(
            "Snapshot {} of {}, published by {} commit {} of {} under an id that had existed"
                + " and expired while it was paused, was deleted by an expiration",
            id,
            table.fullName(),
            kind,
            identifier,
            commitUser);
        throw new CommitFailedException(
            "Snapshot id "
                + id
                + " of "
                + table.fullName()
                + " had"
                + " existed and expired while "
                + kind
                + " commit "
                + identifier
                + " of "
                + commitUser
                + " was paused between its base check and its publish, and an expiration deleted the"
                + " file it published; nothing was committed. Commit the same messages again.");
      }
      if (fresh == Freshness.REUSED) {
        withdraw(id, kind, identifier, written);
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** What {@link #verifyFresh} found out about a snapshot this commit published. */
  private enum Freshness {
    FRESH,
    REUSED,
    UNKNOWN,
    /** Reused, and our file is gone already (an expiration deleted it). */
    REUSED_GONE
  }

  /**
   * After publishing snapshot {@code id} on {@code base}: whether {@code id} was fresh (no snapshot
   * ever had it before), so that history continues from ours; or REUSED (it had existed and expired
   * while we were paused between the base check and the publish); or UNKNOWN.
   *
   * <p>Why this holds: expiration deletes snapshot files in ascending id order, never the newest,
   * and only snapshots whose successor was built on them (it skips a snapshot whose successor is
   * missing or names another parent); the base was the newest snapshot when we listed right before
   * publishing, so it was the first ever to have its id, and it is never created again.
   *
   * <ol>
   *   <li>The base still exists (same commit id): an earlier holder of {@code id} could only have
   *       expired after the base did, so {@code id} was fresh.
   *   <li>Ours is gone ({@link #gone}): an expiration deleted it. Expiration plans only snapshots a
   *       successor was built on, but a run that planned the id's first holder deletes the file by
   *       name, so ours may go as well: snapshot {@code id + 1} naming our commit id (or a later
   *       one naming our delta) means fresh, another parent means reused (nothing left to withdraw:
   *       the commit fails), neither means unknown.
   *   <li>Snapshot {@code id + 1} exists: built on ours (its parent is our commit id) means fresh;
   *       another parent means an earlier holder of {@code id} is its parent: reused.
   *   <li>No {@code id + 1}: ours is the newest listed means fresh (a reused id always has a newer
   *       snapshot above it); a newer one above a missing {@code id + 1} while ours still exists
   *       means reused (in a fresh history, {@code id + 1} can only go after ours did).
   * </ol>
   *
   * Anything else after three rounds (or a successor from an older writer, without the parent
   * field) is UNKNOWN: never withdraw what others may have built on.
   */
  private Freshness verifyFresh(
      long id, String ours, Snapshot base, String deltaManifest, String deltaList)
      throws IOException {
    if (base != null) {
      Optional<Snapshot> now = snapshots.readUncached(base.id());
      if (now.isPresent() && now.get().commitId().equals(base.commitId())) {
        return Freshness.FRESH;
      }
    }
    for (int round = 0; round < 3; round++) {
      Optional<Snapshot> mine = snapshots.readUncached(id);
      if (mine.isEmpty()) {
        return gone(id, ours, deltaManifest, deltaList);
      }
      if (!mine.get().commitId().equals(ours)) {
        return Freshness.UNKNOWN;
      }
      Optional<Snapshot> next = snapshots.readUncached(id + 1);
      if (next.isPresent()) {
        String parent = next.get().parentCommitId();
        return parent == null
            ? Freshness.UNKNOWN
            : parent.equals(ours) ? Freshness.FRESH : Freshness.REUSED;
      }
      List<Long> listed = snapshots.log().listIds();
      long max = listed.isEmpty() ? 0 : listed.get(listed.size() - 1);
      if (max == id) {
        return Freshness.FRESH;
      }
      if (max > id + 1 && snapshots.readUncached(id + 1).isEmpty()) {
        Optional<Snapshot> still = snapshots.readUncached(id);
        if (still.isEmpty()) {
          return gone(id, ours, deltaManifest, deltaList);
        }
        if (still.get().commitId().equals(ours)) {
          return Freshness.REUSED;
        }
      }
    }
    return Freshness.UNKNOWN;
  }

  /**
   * Our snapshot {@code id} is gone. Either it expired after a successor was built on it (fresh),
   * or it was published under an id that had existed and an expiration that still had the id's
   * first holder in its plan deleted it (reused; two expirations that both delete snapshot N, with
   * our publish in between: the README's window (b)). Snapshot {@code id + 1} tells them apart by
   * its parent; without it, a later snapshot that names our delta says fresh; else unknown.
   */
  private Freshness gone(long id, String ours, String deltaManifest, String deltaList)
      throws IOException {
    Optional<Snapshot> next = snapshots.readUncached(id + 1);
    if (next.isPresent() && next.get().parentCommitId() != null) {
      return next.get().parentCommitId().equals(ours) ? Freshness.FRESH : Freshness.REUSED_GONE;
    }
    return builtOn(id, deltaManifest, deltaList) ? Freshness.FRESH : Freshness.UNKNOWN;
  }

  /**
   * Deletes snapshot {@code id}, which this commit published under an id that had existed before:
   * nothing can have been built on it (it was never the newest), and expiration never touches it.
   * Then fails the commit: nothing of it is in the table's history.
   */
  private void withdraw(long id, CommitKind kind, long identifier, List<String> written)
      throws IOException {
    Path path = snapshots.log().snapshotPath(id);
    try {
      table.fileIO().delete(path, false);
    } catch (IOException e) {
      throw new CommitStateUnknownException(path, e);
    }
    snapshots.forget(id);
    cleanUp(written);
    LOG.warn(
        "Withdrew snapshot {} of {}: {} commit {} of {} published an id that had existed and"
            + " expired while it was paused",
        id,
        table.fullName(),
        kind,
        identifier,
        commitUser);
    throw new CommitFailedException(
        "Snapshot id "
            + id
            + " of "
            + table.fullName()
            + " had"
            + " existed and expired while "
            + kind
            + " commit "
            + identifier
            + " of "
            + commitUser
            + " was paused between its base check and its publish (longer than the retention"
            + " allowed); the snapshot was withdrawn and nothing was committed. Commit the same"
            + " messages again.");
  }

  /**
   * {@code e}, thrown while writing files of this commit that no snapshot names yet; an interrupt
   * (a write stopped by it, or the thread's flag set) becomes a {@link CommitInterruptedException},
   * so that the commit's other unpublished files go too ({@link CleanableFailure}).
   */
  private static IOException unpublished(Exception e, String what) {
    boolean interrupted = Thread.currentThread().isInterrupted();
    for (Throwable c = e; c != null && !interrupted; c = c.getCause()) {
      interrupted =
          c instanceof java.io.InterruptedIOException
              || c instanceof java.nio.channels.ClosedByInterruptException;
    }
    if (interrupted && !(e instanceof CleanableFailure)) {
      return new CommitInterruptedException(
          "Interrupted while " + what + "; nothing was committed", e);
    }
    if (e instanceof RuntimeException runtime) {
      throw runtime;
    }
    return (IOException) e;
  }

  private void cleanUp(List<String> written) {
    for (String name : written) {
      if (name.startsWith("m:")) {
        table.manifestFile().deleteQuietly(name.substring(2));
      } else if (name.startsWith("i:")) {
        table.indexManifest().deleteQuietly(name.substring(2));
      } else {
        table.manifestList().deleteQuietly(name);
      }
    }
  }

  /**
   * Gives up after the {@code conflicts}th conflict of this commit (at snapshot {@code id}; the
   * first was at {@code firstTried}, {@code contended} of them under a contended lock) when {@code
   * commit.max-retries} or {@code commit.timeout} ran out.
   */
  private void checkLimits(
      long start,
      int conflicts,
      int contended,
      long firstTried,
      long id,
      CommitKind kind,
      long identifier)
      throws CommitFailedException {
    boolean outOfRetries = conflicts > options.commitMaxRetries();
    long elapsed = System.nanoTime() - start;
    boolean outOfTime =
        options.commitTimeout() != null && elapsed > options.commitTimeout().toNanos();
    if (!outOfRetries && !outOfTime) {
      return;
    }
    String limit =
        outOfRetries
            ? "'" + CoreOptions.COMMIT_MAX_RETRIES + "' (" + options.commitMaxRetries() + ")"
            : "'"
                + CoreOptions.COMMIT_TIMEOUT
                + "' ("
                + Durations.format(options.commitTimeout())
                + ")";
    String fix;
    if (contended * 2 > conflicts) {
      fix =
          " The table's lock was held by another committer in most attempts: fewer or less"
              + " frequent committers, or a lock-free strategy (a store with atomic create), help more"
              + " than a higher limit.";
    } else if (outOfRetries) {
      fix =
          " Every conflict is another commit that landed first; with fair turns a commit loses"
              + " about one race per other committer, so raise "
              + limit
              + " above the number of"
              + " committers that commit to this table at once, or set '"
              + CoreOptions.COMMIT_TIMEOUT
              + "' and a high '"
              + CoreOptions.COMMIT_MAX_RETRIES
              + "' to limit by time instead.";
    } else {
      fix =
          " The attempts themselves were slow: look at the store's (or lock service's) latency,"
              + " or raise "
              + limit
              + ".";
    }
    throw new CommitFailedException(
        "Gave up "
            + kind
            + " commit "
            + identifier
            + " of "
            + commitUser
            + " on "
            + table.fullName()
            + " at "
            + limit
            + ": "
            + conflicts
            + " snapshot conflicts in "
            + Durations.format(Duration.ofMillis(elapsed / 1_000_000))
            + (contended == 0 ? "" : " (" + contended + " under a contended lock)")
            + "; other commits took snapshot"
            + (firstTried == id ? " " + id : "s " + firstTried + " to " + id)
            + " meanwhile. Nothing was committed and the data files are intact:"
            + " commit the same messages again (same identifier)."
            + fix);
  }

  /**
   * After losing the race for snapshot {@code id} without a contended lock: returns once the
   * winner's snapshot is readable (it is then cached, and the catch-up reads it from memory), at
   * once when it is already; polls at {@code commit.min-retry-wait} (at least 0.1 ms) for at most
   * {@code commit.max-retry-wait}, never past {@code commit.timeout}. A snapshot that stays
   * unreadable (gone, or a store that shows it late) is the catch-up's to deal with.
   */
  private void awaitWinner(long id, long start) throws IOException {
    long deadline = System.nanoTime() + options.commitMaxRetryWait().toNanos();
    if (options.commitTimeout() != null) {
      deadline = Math.min(deadline, start + options.commitTimeout().toNanos());
    }
    long poll = Math.max(100_000, options.commitMinRetryWait().toNanos());
    while (true) {
      try {
        if (snapshots.find(id).isPresent()) {
          return;
        }
      } catch (com.fasterxml.jackson.core.JsonProcessingException partial) {
        // Not fully readable yet on this store: wait for it like for a missing one.
      }
      if (System.nanoTime() + poll > deadline) {
        return;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(poll);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CommitInterruptedException(
            "Interrupted between commit attempts; nothing was" + " committed");
      }
    }
  }

  /**
   * How long an attempt may wait for its in-process turn in all: until {@code commit.timeout} runs
   * out, else without a limit of its own (the turn's slices end a wait on a stalled holder).
   */
  private long turnBudgetNanos(long start) {
    if (options.commitTimeout() == null) {
      return Long.MAX_VALUE;
    }
    return start + options.commitTimeout().toNanos() - System.nanoTime();
  }

  /** Sleeps {@code pause}, but not past {@code commit.timeout}. */
  private void sleep(RetryPolicy.Pause pause, long start) throws CommitInterruptedException {
    long nanos = pause.drawNanos();
    if (options.commitTimeout() != null) {
      nanos = Math.min(nanos, start + options.commitTimeout().toNanos() - System.nanoTime());
    }
    if (nanos <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommitInterruptedException(
          "Interrupted between commit attempts; nothing was" + " committed");
    }
  }
}
