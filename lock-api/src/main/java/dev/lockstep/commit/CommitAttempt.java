package dev.lockstep.commit;

/**
 * What one {@link SnapshotCommitter#commit} came to: the one result type of a commit.
 *
 * @param outcome {@link CommitOutcome#COMMITTED} or {@link CommitOutcome#CONFLICT}, never {@link
 *     CommitOutcome#UNKNOWN} (that is thrown as {@link CommitStateUnknownException})
 * @param lockContended under {@code commit.strategy=lock}: another holder had the table's lock when
 *     this attempt asked for it (also when the attempt then timed out on the lock and found the
 *     snapshot taken). Always {@code false} for the lock-free strategies, which have no lock. It is
 *     observed (the first acquire does not wait), never guessed from timings. A caller retrying
 *     after a CONFLICT backs off when it is {@code true} and retries at once when it is {@code
 *     false}: the conflict then only means its base snapshot was stale.
 */
public record CommitAttempt(CommitOutcome outcome, boolean lockContended) {

  public CommitAttempt {
    if (outcome == CommitOutcome.UNKNOWN) {
      throw new IllegalArgumentException("An unknown outcome is thrown, never returned");
    }
  }

  /** Whether the snapshot is ours: {@link CommitOutcome#COMMITTED}. */
  public boolean committed() {
    return outcome == CommitOutcome.COMMITTED;
  }
}
