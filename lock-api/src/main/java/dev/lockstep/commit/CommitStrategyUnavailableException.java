package dev.lockstep.commit;

/**
 * The configured commit strategy cannot be made safe on this store with these options. Raised when
 * the committer is opened, before anything is written; the message names the fix.
 */
public class CommitStrategyUnavailableException extends IllegalArgumentException
    implements CleanableFailure {

  public CommitStrategyUnavailableException(String message) {
    super(message);
  }
}
