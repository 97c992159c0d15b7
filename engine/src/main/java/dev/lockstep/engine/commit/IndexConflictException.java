package dev.lockstep.engine.commit;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.engine.index.IntIntMap;
import java.io.IOException;
import java.util.Map;

/**
 * Dynamic buckets: key hashes this commit assigned to a bucket were assigned to another bucket by a
 * commit since its base snapshot. Nothing was published. {@link TableCommit} resolves it in-process
 * by moving those keys' rows into the other (winning) bucket and committing again.
 */
final class IndexConflictException extends IOException implements CleanableFailure {

  private final transient Map<String, IntIntMap> winners;

  IndexConflictException(Map<String, IntIntMap> winners, int count, long snapshotId) {
    super(
        count
            + " key hashes of this commit were assigned to other buckets by snapshot "
            + snapshotId
            + " or earlier");
    this.winners = winners;
  }

  /** By partition: conflicting hash → the bucket it is committed to. */
  Map<String, IntIntMap> winners() {
    return winners;
  }
}
