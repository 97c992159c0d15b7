package dev.lockstep.fs;

import java.io.IOException;

/**
 * A write may or may not have reached the store: the request was sent but its answer was lost
 * (timeout, connection reset, a 5xx after sending, or an SDK retry that answered "already exists"
 * for what may have been our own first attempt).
 *
 * <p>This is neither failure nor conflict. The caller must read the state back before deciding
 * anything, and must never clean up what the write may have published.
 */
public class UncertainWriteException extends IOException {

  private final Path path;

  public UncertainWriteException(Path path, String message, Throwable cause) {
    super(
        "Outcome of the write to "
            + path
            + " is unknown: "
            + message
            + ". Read the path back before deciding; do not clean up.",
        cause);
    this.path = path;
  }

  /** The path the write was for. */
  public Path path() {
    return path;
  }
}
