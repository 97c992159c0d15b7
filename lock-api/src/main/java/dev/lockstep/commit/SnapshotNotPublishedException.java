package dev.lockstep.commit;

import java.io.IOException;

/**
 * Every write attempt of a snapshot failed before landing, and reading it back showed it absent:
 * nothing was committed ({@link CleanableFailure}).
 */
public class SnapshotNotPublishedException extends IOException implements CleanableFailure {

  public SnapshotNotPublishedException(String message, Throwable cause) {
    super(message, cause);
  }
}
