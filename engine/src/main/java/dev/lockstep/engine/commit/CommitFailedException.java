package dev.lockstep.engine.commit;

import dev.lockstep.commit.CleanableFailure;
import java.io.IOException;

/**
 * Nothing of this commit was published, and it cannot be by retrying the same way: retries or time
 * ran out ({@code commit.max-retries}, {@code commit.timeout}), an OVERWRITE met data that other
 * commits added to its partitions after its base snapshot, or the bucket count changed. The
 * messages' data files are intact: the caller may commit them again (same identifier) or abandon
 * them (orphan-file removal collects them).
 */
public class CommitFailedException extends IOException implements CleanableFailure {
  public CommitFailedException(String message) {
    super(message);
  }
}
