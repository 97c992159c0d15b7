package dev.lockstep.commit;

import dev.lockstep.fs.Path;
import java.io.IOException;

/**
 * A commit may or may not have become snapshot N, and reading it back did not tell. The caller must
 * not clean up anything the commit references (its manifests and data files may be live) and must
 * not blindly retry at N: restart from the latest snapshot, where a commit-identifier check decides
 * whether the commit landed.
 */
public class CommitStateUnknownException extends IOException {

  private final Path snapshotPath;

  public CommitStateUnknownException(Path snapshotPath, Throwable cause) {
    super(
        "Cannot tell whether the commit of "
            + snapshotPath
            + " landed ("
            + cause
            + "). Do not clean up the files it references; reload the table and check the latest"
            + " snapshots for this commit before retrying.",
        cause);
    this.snapshotPath = snapshotPath;
  }

  /** The snapshot file whose ownership is unknown. */
  public Path snapshotPath() {
    return snapshotPath;
  }
}
