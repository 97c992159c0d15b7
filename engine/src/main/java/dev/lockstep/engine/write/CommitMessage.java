package dev.lockstep.engine.write;

import dev.lockstep.engine.manifest.DataFileMeta;
import java.io.Serializable;
import java.util.List;

/**
 * What one writer changed in one bucket since its last {@code prepareCommit}: serializable, so that
 * writers on many machines can hand their messages to one committer.
 *
 * @param partition partition path, {@code ""} when unpartitioned
 * @param totalBuckets the bucket count the writer used
 * @param newFiles new level-0 files (appended data), not yet committed
 * @param compactBefore committed files that a compaction replaced
 * @param compactAfter the compaction's output files, not yet committed
 * @param baseSnapshotId the snapshot the writer's view was at when it started this batch (0 =
 *     none); an OVERWRITE conflicts with data other commits added after it
 */
public record CommitMessage(
    String partition,
    int bucket,
    int totalBuckets,
    List<DataFileMeta> newFiles,
    List<DataFileMeta> compactBefore,
    List<DataFileMeta> compactAfter,
    long baseSnapshotId)
    implements Serializable {

  public CommitMessage {
    newFiles = List.copyOf(newFiles);
    compactBefore = List.copyOf(compactBefore);
    compactAfter = List.copyOf(compactAfter);
  }

  public boolean isEmpty() {
    return newFiles.isEmpty() && compactBefore.isEmpty() && compactAfter.isEmpty();
  }
}
