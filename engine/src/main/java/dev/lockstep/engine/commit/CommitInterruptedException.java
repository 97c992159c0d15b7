package dev.lockstep.engine.commit;

import dev.lockstep.commit.CleanableFailure;
import java.io.InterruptedIOException;

/**
 * The commit was interrupted while nothing of it was published (waiting for the lock, or between
 * attempts): its manifests may be deleted ({@link CleanableFailure}). An interrupt after a write
 * that may land is reported as {@code CommitStateUnknownException} instead.
 */
public class CommitInterruptedException extends InterruptedIOException implements CleanableFailure {

  public CommitInterruptedException(String message) {
    super(message);
  }

  /** Interrupted while writing a file of the commit that nothing names yet ({@code cause}). */
  public CommitInterruptedException(String message, Throwable cause) {
    super(message);
    initCause(cause);
  }
}
