package dev.lockstep.bench;

/** Why a commit failed, as the system under benchmark said it. */
public enum FailureKind {
  /**
   * The system gave up after its snapshot-conflict retry budget ({@code commit.max-retries}): the
   * commit's data was not committed; a job would retry it or fail over.
   */
  RETRIES_EXHAUSTED,
  /**
   * The commit's file changes could not be applied to the current table (a file it deletes is gone,
   * level overlap): Paimon fails the job here and it must restart.
   */
  FILE_CONFLICT,
  /** Anything else. */
  OTHER
}
