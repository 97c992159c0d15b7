package dev.lockstep.commit;

/** What a snapshot commit attempt came to. */
public enum CommitOutcome {
  /** Snapshot N now holds exactly our content. */
  COMMITTED,
  /**
   * Someone else owns snapshot N: rebase onto it and retry at N+1. Nothing of ours was published.
   */
  CONFLICT,
  /**
   * We cannot tell whether snapshot N is ours. Never returned by {@link SnapshotCommitter#commit}:
   * it is raised as {@link CommitStateUnknownException}, so that no caller can miss it. Listed for
   * reports.
   */
  UNKNOWN
}
