package dev.lockstep.engine.commit;

import dev.lockstep.engine.manifest.BucketId;
import java.util.List;

/**
 * What one {@link TableCommit} call did.
 *
 * @param alreadyCommitted the identifier was found in a snapshot already: nothing was done
 * @param dataSnapshotId the APPEND or OVERWRITE snapshot, -1 when none was needed
 * @param compactSnapshotId the COMPACT snapshot, -1 when none (nothing to compact, or dropped)
 * @param droppedCompactions buckets of compactions dropped after a file conflict; their output
 *     files were deleted and the writer compacts those buckets again later
 * @param retries snapshot conflicts met on the way
 */
public record CommitResult(
    long identifier,
    boolean alreadyCommitted,
    long dataSnapshotId,
    long compactSnapshotId,
    List<BucketId> droppedCompactions,
    int retries) {

  public CommitResult {
    droppedCompactions = List.copyOf(droppedCompactions);
  }

  static CommitResult noop(long identifier) {
    return new CommitResult(identifier, true, -1, -1, List.of(), 0);
  }
}
