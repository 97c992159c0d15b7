package dev.lockstep.commit;

import java.io.IOException;

/**
 * The table's lock could not be had within {@code lock-acquire-timeout}; nothing was written by the
 * attempt that waited. The commit does not try again: waiting once more would multiply the timeout
 * the option promises by {@code commit.write-attempts}. The caller may commit again later.
 */
public final class LockNotAcquiredException extends IOException implements CleanableFailure {

  private static final long serialVersionUID = 1L;

  public LockNotAcquiredException(String message) {
    super(message);
  }
}
