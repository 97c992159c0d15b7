package dev.lockstep.commit;

import dev.lockstep.fs.Path;
import dev.lockstep.lock.LockLostException;

/**
 * A commit under the {@code lock} strategy was refused because a newer holder of the same lock has
 * committed since this holder's lease was granted: the lease lapsed (a pause longer than the lease,
 * an expired session) and another writer took the lock over. Nothing was written by this attempt.
 *
 * <p>Not retried by the committer and not a conflict: this holder must not publish on the strength
 * of a lease that someone else has replaced. The caller's commit failed cleanly; committing the
 * same change again starts over with a new lease (for the engine: commit the same messages with the
 * same identifier again). If it happens more than rarely, this process pauses for longer than the
 * lease: look at garbage-collection pauses and machine load, or give the lock a longer lease or
 * session timeout.
 */
public class FencedCommitException extends LockLostException implements CleanableFailure {

  private final Path snapshotPath;
  private final FencingToken ours;
  private final Path newerSnapshot;
  private final FencingToken newer;

  public FencedCommitException(
      Path snapshotPath, FencingToken ours, Path newerSnapshot, FencingToken newer) {
    super(
        "Refusing to publish "
            + snapshotPath
            + " under fencing token "
            + ours.token()
            + " of lock '"
            + ours.lock()
            + "': "
            + newerSnapshot
            + " was committed under the newer token "
            + newer.token()
            + ", so this holder's lease lapsed and another writer took the lock over."
            + " Nothing was written. Commit again (a new attempt takes a new lease); if this repeats,"
            + " look for pauses longer than the lease (GC, an overloaded host) or give the lock a"
            + " longer lease or session timeout.");
    this.snapshotPath = snapshotPath;
    this.ours = ours;
    this.newerSnapshot = newerSnapshot;
    this.newer = newer;
  }

  /** The snapshot this attempt meant to publish (not written). */
  public Path snapshotPath() {
    return snapshotPath;
  }

  /** The token of the lapsed lease this attempt held. */
  public FencingToken ours() {
    return ours;
  }

  /** The snapshot that carries the newer token. */
  public Path newerSnapshot() {
    return newerSnapshot;
  }

  /** The newer holder's token. */
  public FencingToken newer() {
    return newer;
  }
}
