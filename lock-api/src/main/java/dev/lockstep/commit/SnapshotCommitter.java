package dev.lockstep.commit;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns "snapshot N is this content" into exactly one of {@link CommitOutcome#COMMITTED}, {@link
 * CommitOutcome#CONFLICT} or a {@link CommitStateUnknownException}.
 *
 * <p>The strategy is chosen once, when the committer is opened ({@link #resolve}):
 *
 * <ol>
 *   <li>{@code commit.strategy=auto}: {@code lock} when {@code lock.enabled=true}; else {@code
 *       atomic-create} when the store {@link SupportsAtomicCreate}; else {@code rename} when it
 *       {@link SupportsAtomicRename}; else refuse with the fix ({@code lock.enabled=true} and a
 *       {@code lock.type}). Never an unsafe write.
 *   <li>An explicit strategy the store or options cannot support is refused the same way.
 * </ol>
 *
 * <p>One commit ({@link #commit}):
 *
 * <ol>
 *   <li>Publish {@code snapshot-N} through the strategy.
 *   <li>After a conflict, a failure or an uncertain outcome, read {@code snapshot-N} back. Our
 *       content (it carries a unique commit id, so equal bytes mean our commit) means COMMITTED,
 *       another content means CONFLICT, absence means the write did not land: retry, up to {@code
 *       commit.write-attempts}; but absence after an uncertain write while a newer snapshot exists
 *       means ours may have landed, been built on and expired meanwhile: {@link
 *       CommitStateUnknownException}, never a second write of the same commit. A lock that could
 *       not be had within {@code lock-acquire-timeout} is not retried: after the read-back, {@link
 *       LockNotAcquiredException} (the option's timeout holds for the whole commit, not once per
 *       write attempt).
 *   <li>A read-back that itself fails, or attempts exhausted after uncertain outcomes, raise {@link
 *       CommitStateUnknownException}: nothing may be cleaned up.
 *   <li>After COMMITTED, the {@code LATEST} hint is written, best effort.
 * </ol>
 *
 * <p>Fencing ({@code lock} strategy): with {@link #commit(long, SnapshotContent)} the snapshot is
 * made under the lease and records its {@link FencingToken}; with a {@link FencingTokenReader} the
 * committer refuses to publish over, or on top of, a snapshot that a newer holder of the same lock
 * committed ({@link FencedCommitException}: nothing written, not retried, never reported as unknown
 * unless an earlier attempt of the same commit was uncertain). Lock-free strategies record no
 * token.
 *
 * <p>Thread-safe; committers of one table may run in many threads and processes.
 */
public final class SnapshotCommitter implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotCommitter.class);

  private final FileIO store;
  private final SnapshotLog log;
  private final SnapshotPublisher publisher;
  private final CommitOptions options;
  private final LockService ownedLockService;

  private SnapshotCommitter(
      FileIO store,
      SnapshotLog log,
      SnapshotPublisher publisher,
      CommitOptions options,
      LockService ownedLockService) {
    this.store = store;
    this.log = log;
    this.publisher = publisher;
    this.options = options;
    this.ownedLockService = ownedLockService;
  }

  /**
   * Starts a committer of the snapshots in {@code snapshotDirectory} of the table whose lock key is
   * {@code lockKey} ({@code database.table}) on {@code store}: give its options, either catalog
   * options ({@link Builder#options(Map)}: a lock service {@code lock.type} names is opened and
   * closed with the committer) or parsed ones with a lock service the caller owns ({@link
   * Builder#options(CommitOptions)}, {@link Builder#lockService}); optionally the fencing check
   * ({@link Builder#fencing}); then {@link Builder#open()} (catalog options) or {@link
   * Builder#build()} (parsed options).
   */
  public static Builder builder(FileIO store, Path snapshotDirectory, String lockKey) {
    return new Builder(store, snapshotDirectory, lockKey);
  }

  /** How a {@link SnapshotCommitter} is made; see {@link SnapshotCommitter#builder}. */
  public static final class Builder {
    private final FileIO store;
    private final Path snapshotDirectory;
    private final String lockKey;
    private Map<String, String> catalogOptions;
    private CommitOptions commitOptions;
    private LockService lockService;
    private FencingTokenReader tokenReader;

    private Builder(FileIO store, Path snapshotDirectory, String lockKey) {
      this.store = store;
      this.snapshotDirectory = snapshotDirectory;
      this.lockKey = lockKey;
    }

    /** Catalog options; {@link #open()} opens the lock service they name, if one is needed. */
    public Builder options(Map<String, String> options) {
      this.catalogOptions = Map.copyOf(options);
      return this;
    }

    /** Parsed commit options, with the lock service (if any) given by {@link #lockService}. */
    public Builder options(CommitOptions options) {
      this.commitOptions = options;
      return this;
    }

    /**
     * The table's lock service, owned by the caller (not closed with the committer), or {@code
     * null} when none is configured; only with {@link #options(CommitOptions)}.
     */
    public Builder lockService(LockService lockService) {
      this.lockService = lockService;
      return this;
    }

    /**
     * The fencing check of the {@code lock} strategy: reads the {@link FencingToken} a committed
     * snapshot recorded (the caller's format); none by default.
     */
    public Builder fencing(FencingTokenReader tokenReader) {
      this.tokenReader = tokenReader;
      return this;
    }

    /**
     * The committer over the parts given ({@link #options(CommitOptions)}, {@link #lockService}).
     *
     * @throws CommitStrategyUnavailableException when no safe strategy exists, naming the fix
     * @throws IllegalStateException without {@link #options(CommitOptions)}
     */
    public SnapshotCommitter build() {
      if (commitOptions == null || catalogOptions != null) {
        throw new IllegalStateException(
            "build() assembles a committer from options(CommitOptions)"
                + " and a caller-owned lockService; with catalog options (options(Map)) use open(),"
                + " which opens the lock service they name");
      }
      return create(store, snapshotDirectory, lockKey, commitOptions, lockService, tokenReader);
    }

    /**
     * The committer for catalog options ({@link #options(Map)}): when a lock is needed, the lock
     * service {@code lock.type} names is opened too, and closed with the committer.
     *
     * @throws CommitStrategyUnavailableException when no safe strategy exists, naming the fix
     * @throws IOException when that lock service cannot be opened
     * @throws IllegalStateException without {@link #options(Map)}, or with a lock service
     */
    public SnapshotCommitter open() throws IOException {
      if (catalogOptions == null || commitOptions != null || lockService != null) {
        throw new IllegalStateException(
            "open() is for catalog options (options(Map)), and opens"
                + " the lock service they name; parsed options and a caller-owned lock service go"
                + " with build()");
      }
      return SnapshotCommitter.open(store, snapshotDirectory, lockKey, catalogOptions, tokenReader);
    }
  }

  private static SnapshotCommitter open(
      FileIO store,
      Path snapshotDirectory,
      String lockKey,
      Map<String, String> options,
      FencingTokenReader tokenReader)
      throws IOException {
    CommitOptions commitOptions = CommitOptions.from(options);
    // Only 'lock', or 'auto' with lock.enabled=true, commits under the lock: an explicit lock-free
    // strategy does not open a lock service it would never use.
    boolean needsLock =
        commitOptions.strategy() == CommitStrategy.LOCK
            || (commitOptions.strategy() == CommitStrategy.AUTO && commitOptions.lock().enabled());
    if (!needsLock) {
      return create(store, snapshotDirectory, lockKey, commitOptions, null, tokenReader);
    }
    if (!commitOptions.lock().enabled()) {
      throw new CommitStrategyUnavailableException(
          "'"
              + CommitOptions.COMMIT_STRATEGY
              + "=lock' needs '"
              + LockOptions.LOCK_ENABLED
              + "=true' and a '"
              + LockOptions.LOCK_TYPE
              + "'.");
    }
    if (commitOptions.lock().type() == null) {
      throw new CommitStrategyUnavailableException(
          "'"
              + LockOptions.LOCK_ENABLED
              + "=true' needs a '"
              + LockOptions.LOCK_TYPE
              + "' (zookeeper, jdbc, hive or a vendor's identifier).");
    }
    LockService lockService = LockServiceDiscovery.open(options);
    try {
      SnapshotCommitter committer =
          create(store, snapshotDirectory, lockKey, commitOptions, lockService, tokenReader);
      return new SnapshotCommitter(
          committer.store, committer.log, committer.publisher, committer.options, lockService);
    } catch (RuntimeException e) {
      try {
        lockService.close();
      } catch (IOException closeError) {
        e.addSuppressed(closeError);
      }
      throw e;
    }
  }

  private static SnapshotCommitter create(
      FileIO store,
      Path snapshotDirectory,
      String lockKey,
      CommitOptions options,
      LockService lockService,
      FencingTokenReader tokenReader) {
    SnapshotPublisher publisher =
        resolve(store, snapshotDirectory, options, lockService, lockKey, tokenReader);
    LOG.debug("Snapshots of {} commit with strategy {}", lockKey, publisher.describe());
    return new SnapshotCommitter(
        store, new SnapshotLog(store, snapshotDirectory), publisher, options, null);
  }

  /** Chooses the publisher as the class javadoc says, or refuses. */
  static SnapshotPublisher resolve(
      FileIO store, CommitOptions options, LockService lockService, String lockKey) {
    return resolve(store, null, options, lockService, lockKey, null);
  }

  /**
   * @param snapshotDirectory where snapshots go, or {@code null}: no atomic-create probe
   */
  private static SnapshotPublisher resolve(
      FileIO store,
      Path snapshotDirectory,
      CommitOptions options,
      LockService lockService,
      String lockKey,
      FencingTokenReader tokenReader) {
    SnapshotPublisher primitive = primitiveOf(store);
    switch (options.strategy()) {
      case ATOMIC_CREATE:
        if (!(store instanceof SupportsAtomicCreate)) {
          throw new CommitStrategyUnavailableException(
              "'"
                  + CommitOptions.COMMIT_STRATEGY
                  + "=atomic-create' needs a store with atomic create, and "
                  + describe(store)
                  + " has none. Use 'commit.strategy=auto' with 'lock.enabled=true' and a 'lock.type'.");
        }
        return lockFreeAtomicCreate((SupportsAtomicCreate) store, snapshotDirectory, options);
      case RENAME:
        if (!(store instanceof SupportsAtomicRename)) {
          throw new CommitStrategyUnavailableException(
              "'"
                  + CommitOptions.COMMIT_STRATEGY
                  + "=rename' needs a store with atomic rename, and "
                  + describe(store)
                  + " has none (rename on object stores is copy + delete). Use 'commit.strategy=auto'"
                  + " with 'lock.enabled=true' and a 'lock.type'.");
        }
        return new RenamePublisher((SupportsAtomicRename) store);
      case LOCK:
        return locked(store, primitive, options, lockService, lockKey, tokenReader);
      case AUTO:
      default:
        if (options.lock().enabled()) {
          return locked(store, primitive, options, lockService, lockKey, tokenReader);
        }
        if (store instanceof SupportsAtomicCreate) {
          return lockFreeAtomicCreate((SupportsAtomicCreate) store, snapshotDirectory, options);
        }
        if (primitive != null) {
          return primitive;
        }
        throw new CommitStrategyUnavailableException(
            "Refusing to commit: "
                + describe(store)
                + " has neither atomic create nor atomic rename, so two writers could both win a"
                + " snapshot. Set 'lock.enabled=true' and a 'lock.type' (zookeeper, jdbc or hive) with"
                + " its options, or use a store with conditional writes.");
    }
  }

  private static SnapshotPublisher locked(
      FileIO store,
      SnapshotPublisher primitive,
      CommitOptions options,
      LockService lockService,
      String lockKey,
      FencingTokenReader tokenReader) {
    if (lockService == null) {
      throw new CommitStrategyUnavailableException(
          "Committing under a lock needs a lock service:"
              + " set 'lock.enabled=true' and a 'lock.type' (zookeeper, jdbc or hive).");
    }
    return new LockedPublisher(store, primitive, lockService, lockKey, options, tokenReader);
  }

  /** Lock-free atomic create: nothing but the store's create keeps writers apart, so probe it. */
  private static SnapshotPublisher lockFreeAtomicCreate(
      SupportsAtomicCreate store, Path snapshotDirectory, CommitOptions options) {
    return new AtomicCreatePublisher(
        store,
        snapshotDirectory == null
            ? null
            : AtomicCreateProbe.forStore(store, snapshotDirectory, options));
  }

  private static SnapshotPublisher primitiveOf(FileIO store) {
    if (store instanceof SupportsAtomicCreate) {
      return new AtomicCreatePublisher((SupportsAtomicCreate) store);
    }
    if (store instanceof SupportsAtomicRename) {
      return new RenamePublisher((SupportsAtomicRename) store);
    }
    return null;
  }

  private static String describe(FileIO store) {
    return "the store " + store.getClass().getSimpleName();
  }

  /** The chosen strategy, for example {@code atomic-create} or {@code lock + rename}. */
  public String strategy() {
    return publisher.describe();
  }

  /** Whether this committer publishes under the table's lock ({@code commit.strategy=lock}). */
  public boolean locked() {
    return publisher instanceof LockedPublisher;
  }

  /** Work run under one lease, see {@link #holding}. */
  @FunctionalInterface
  public interface LeaseWork<T> {
    T run() throws IOException, InterruptedException;
  }

  /**
   * Runs {@code work} under one lease of the table's lock ({@code lock} strategy), so that a
   * committer can read the latest snapshot, make its successor and publish it with no other holder
   * committing in between: under a lock, a commit that waited for the lock then rebases instead of
   * losing the race to the holder it waited for. Every {@link #commit} that {@code work} makes on
   * this thread publishes under that lease (with its fencing token) and does not take one of its
   * own; their {@link CommitAttempt#lockContended()} says whether this lease had to be waited for.
   * The lease is released when {@code work} returns or throws. Keep {@code work} short: the lease's
   * time left still bounds each write ({@code commit.lease-margin}), and a lease lost meanwhile
   * fails the publish as it would otherwise.
   *
   * <p>Lock-free strategies have no lease: {@code work} just runs.
   *
   * @throws LockNotAcquiredException when the lease could not be had within {@code
   *     lock-acquire-timeout}; {@code work} did not run
   * @throws IllegalStateException when this thread is already inside {@code holding} of this
   *     committer
   */
  public <T> T holding(LeaseWork<T> work) throws IOException, InterruptedException {
    if (!(publisher instanceof LockedPublisher)) {
      return work.run();
    }
    return ((LockedPublisher) publisher).holding(work, () -> {});
  }

  /** The snapshot files this committer writes. */
  public SnapshotLog log() {
    return log;
  }

  /**
   * Commits {@code content} as snapshot {@code id}: the one entry point of a commit. Plain bytes
   * are {@link SnapshotContent#of(byte[])}; content made once the lease is known (so that the
   * snapshot records the {@link FencingToken} it is committed under) is a {@link SnapshotContent}
   * function: under the {@code lock} strategy each write attempt takes a lease and calls it with
   * its token, so the bytes may differ between attempts and reading back recognises any of them as
   * ours; lock-free strategies call it once, with an empty token.
   *
   * @param content the snapshot file's bytes; must carry a unique commit id, so that equal bytes
   *     mean this very commit
   * @return {@link CommitOutcome#COMMITTED} or {@link CommitOutcome#CONFLICT} (never UNKNOWN), and
   *     whether the table's lock was contended on the way ({@link CommitAttempt#lockContended()}),
   *     so that a caller retrying after a conflict can choose between an immediate retry and
   *     backing off
   * @throws CommitStateUnknownException when it cannot be told whether the commit landed
   * @throws FencedCommitException under the {@code lock} strategy with a token reader: a newer
   *     holder of the lock committed since this attempt's lease was granted; nothing was written
   * @throws SnapshotNotPublishedException when every attempt failed before landing; nothing was
   *     published ({@link CleanableFailure})
   */
  public CommitAttempt commit(long id, SnapshotContent content)
      throws IOException, InterruptedException {
    Objects.requireNonNull(content, "content");
    return attempt(id, content, content instanceof FixedContent fixed ? fixed.bytes() : null);
  }

  /**
   * @param fixed the content when it does not depend on the token (plain bytes), else {@code null}
   */
  private CommitAttempt attempt(long id, SnapshotContent content, byte[] fixed)
      throws IOException, InterruptedException {
    boolean[] contended = {false};
    CommitOutcome outcome = publishAndReadBack(id, content, fixed, () -> contended[0] = true);
    return new CommitAttempt(outcome, contended[0]);
  }

  private CommitOutcome publishAndReadBack(
      long id, SnapshotContent content, byte[] fixed, Runnable onLockContended)
      throws IOException, InterruptedException {
    if (id < 1) {
      throw new IllegalArgumentException("Snapshot ids start at 1: " + id);
    }
    Path target = log.snapshotPath(id);
    // Every content this commit may have published: under a lock each attempt has its own token.
    // Plain bytes are ours from the start (a re-commit of bytes that landed earlier is COMMITTED).
    List<byte[]> tried = new ArrayList<>();
    if (fixed != null) {
      tried.add(fixed);
    }
    byte[] lockFree = null;
    if (!(publisher instanceof LockedPublisher)) {
      lockFree = fixed != null ? fixed : content.bytes(Optional.empty());
      tried.add(lockFree);
    }
    IOException lastFailure = null;
    boolean uncertain = false;
    boolean lockUnavailable = false;
    for (int attempt = 1; attempt <= options.writeAttempts() && !lockUnavailable; attempt++) {
      try {
        if (lockFree == null) {
          ((LockedPublisher) publisher).publish(target, content, onLockContended, tried);
        } else {
          publisher.publish(target, lockFree);
        }
        log.writeLatestHint(id);
        return CommitOutcome.COMMITTED;
      } catch (InterruptedException e) {
        // Publishers throw this only before anything was written; but an earlier attempt may have
        // been uncertain, and an interrupted caller must not read "nothing happened" then.
        if (uncertain) {
          Thread.currentThread().interrupt();
          throw new CommitStateUnknownException(target, lastFailure);
        }
        throw e;
      } catch (FencedCommitException e) {
        // This attempt wrote nothing and must not be retried: a newer holder took the lock over.
        // Only an earlier uncertain attempt of this commit (whose write may still land) leaves the
        // outcome unknown.
        if (uncertain) {
          e.addSuppressed(lastFailure);
          throw new CommitStateUnknownException(target, e);
        }
        throw e;
      } catch (FileAlreadyExistsException e) {
        lastFailure = e;
      } catch (LockNotAcquiredException e) {
        // The attempt waited out 'lock-acquire-timeout' and wrote nothing: read back (a holder
        // may have taken the snapshot, or an earlier uncertain write of ours landed), then stop.
        lockUnavailable = true;
        lastFailure = e;
      } catch (UncertainWriteException e) {
        uncertain = true;
        lastFailure = e;
      } catch (IOException e) {
        lastFailure = e;
      }
      CommitOutcome readBack = readBack(target, tried, lastFailure);
      if (readBack == CommitOutcome.COMMITTED) {
        LOG.debug("Snapshot {} is ours after {}", target, lastFailure.toString());
        log.writeLatestHint(id);
        return CommitOutcome.COMMITTED;
      }
      if (readBack == CommitOutcome.CONFLICT) {
        return CommitOutcome.CONFLICT;
      }
      LOG.debug(
          "Snapshot {} did not land on attempt {}: {}", target, attempt, lastFailure.toString());
      if (uncertain && Thread.currentThread().isInterrupted()) {
        // Interrupted after an uncertain write that may still land: stop, and say we cannot tell.
        throw new CommitStateUnknownException(target, lastFailure);
      }
      if (uncertain && newerThan(id)) {
        // An uncertain write, snapshot N absent, and a newer snapshot exists: ours may have landed,
        // been built on and expired before the read-back. Writing N again would publish the same
        // commit a second time under an id that had existed; say we cannot tell instead.
        throw new CommitStateUnknownException(
            target,
            new IOException(
                "Snapshot "
                    + id
                    + " is absent after an uncertain write, but a newer snapshot exists: the write may"
                    + " have landed and expired since",
                lastFailure));
      }
    }
    if (uncertain) {
      throw new CommitStateUnknownException(target, lastFailure);
    }
    if (lockUnavailable) {
      throw (LockNotAcquiredException) lastFailure;
    }
    throw new SnapshotNotPublishedException(
        "Could not write snapshot "
            + target
            + " in "
            + options.writeAttempts()
            + " attempts (option '"
            + CommitOptions.COMMIT_WRITE_ATTEMPTS
            + "'); nothing was committed.",
        lastFailure);
  }

  /** Whether a snapshot newer than {@code id} is listed (a failed listing counts as yes). */
  private boolean newerThan(long id) {
    try {
      List<Long> ids = log.listIds();
      return !ids.isEmpty() && ids.get(ids.size() - 1) > id;
    } catch (IOException e) {
      return true;
    }
  }

  /**
   * Reads {@code target} back after {@code cause}: COMMITTED when it holds any of the bytes this
   * commit tried, CONFLICT when it holds another's, UNKNOWN (returned, not thrown) when it is
   * absent.
   *
   * @throws CommitStateUnknownException when the read itself fails
   */
  private CommitOutcome readBack(Path target, List<byte[]> tried, IOException cause)
      throws CommitStateUnknownException {
    byte[] found;
    try {
      found = SnapshotLog.readFile(store, target);
    } catch (FileNotFoundException e) {
      return CommitOutcome.UNKNOWN;
    } catch (IOException e) {
      e.addSuppressed(cause);
      throw new CommitStateUnknownException(target, e);
    }
    for (byte[] content : tried) {
      if (Arrays.equals(found, content)) {
        return CommitOutcome.COMMITTED;
      }
    }
    return CommitOutcome.CONFLICT;
  }

  @Override
  public void close() throws IOException {
    if (publisher instanceof LockedPublisher) {
      ((LockedPublisher) publisher).shutdown();
    }
    if (ownedLockService != null) {
      ownedLockService.close();
    }
  }
}
