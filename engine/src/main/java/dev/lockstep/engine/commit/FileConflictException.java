package dev.lockstep.engine.commit;

import dev.lockstep.commit.CleanableFailure;
import java.io.IOException;

/**
 * A commit's file changes cannot be rebased onto the current table: a file it deletes is no longer
 * live, a level >= 1 file it adds overlaps a live file of that level in its bucket, or the bucket
 * count changed. {@link TableCommit} resolves it for compactions (the compaction is dropped) and
 * overwrites (re-planned); for appends it becomes a {@link CommitFailedException}.
 */
public class FileConflictException extends IOException implements CleanableFailure {

  private final String partition;
  private final int bucket;

  public FileConflictException(String partition, int bucket, String message) {
    super(message);
    this.partition = partition;
    this.bucket = bucket;
  }

  public String partition() {
    return partition;
  }

  public int bucket() {
    return bucket;
  }
}
