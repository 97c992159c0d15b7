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
 * @param changelogFiles the batch's changelog files ({@code changelog-producer} {@code input} or
 *     {@code lookup}), not yet committed; they go into the APPEND snapshot's changelog
 */
public record CommitMessage(
    String partition,
    int bucket,
    int totalBuckets,
    List<DataFileMeta> newFiles,
    List<DataFileMeta> compactBefore,
    List<DataFileMeta> compactAfter,
    long baseSnapshotId,
    List<DataFileMeta> changelogFiles)
    implements Serializable {

  /** A message without changelog files. */
  public CommitMessage(
      String partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> newFiles,
      List<DataFileMeta> compactBefore,
      List<DataFileMeta> compactAfter,
      long baseSnapshotId) {
    this(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        compactBefore,
        compactAfter,
        baseSnapshotId,
        List.of());
  }

  public CommitMessage {
    changelogFiles = changelogFiles == null ? List.of() : List.copyOf(changelogFiles);
    newFiles = List.copyOf(newFiles);
    compactBefore = List.copyOf(compactBefore);
    compactAfter = List.copyOf(compactAfter);
  }

  public boolean isEmpty() {
    return newFiles.isEmpty()
        && compactBefore.isEmpty()
        && compactAfter.isEmpty()
        && changelogFiles.isEmpty();
  }
}
