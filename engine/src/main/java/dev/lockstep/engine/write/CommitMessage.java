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
 * @param indexHashes dynamic buckets: the key hashes this batch assigned to this bucket that were
 *     not in the committed index at {@code baseSnapshotId} (the commit adds them to the index, or
 *     re-routes their rows when another commit assigned them elsewhere meanwhile); empty otherwise
 */
public record CommitMessage(
    String partition,
    int bucket,
    int totalBuckets,
    List<DataFileMeta> newFiles,
    List<DataFileMeta> compactBefore,
    List<DataFileMeta> compactAfter,
    long baseSnapshotId,
    List<DataFileMeta> changelogFiles,
    int[] indexHashes)
    implements Serializable {

  private static final int[] NONE = new int[0];

  public CommitMessage {
    changelogFiles = changelogFiles == null ? List.of() : List.copyOf(changelogFiles);
    newFiles = List.copyOf(newFiles);
    compactBefore = List.copyOf(compactBefore);
    compactAfter = List.copyOf(compactAfter);
    indexHashes = indexHashes == null || indexHashes.length == 0 ? NONE : indexHashes.clone();
  }

  /** A message without changelog files that assigns no key hashes (fixed buckets, compactions). */
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
        List.of(),
        NONE);
  }

  /** A message with changelog files that assigns no key hashes. */
  public CommitMessage(
      String partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> newFiles,
      List<DataFileMeta> compactBefore,
      List<DataFileMeta> compactAfter,
      long baseSnapshotId,
      List<DataFileMeta> changelogFiles) {
    this(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        compactBefore,
        compactAfter,
        baseSnapshotId,
        changelogFiles,
        NONE);
  }

  /** A message without changelog files that assigns {@code indexHashes}. */
  public CommitMessage(
      String partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> newFiles,
      List<DataFileMeta> compactBefore,
      List<DataFileMeta> compactAfter,
      long baseSnapshotId,
      int[] indexHashes) {
    this(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        compactBefore,
        compactAfter,
        baseSnapshotId,
        List.of(),
        indexHashes);
  }

  @Override
  public int[] indexHashes() {
    return indexHashes.clone();
  }

  /**
   * This message with another base snapshot, its changelog files and index assignments kept
   * (rebuilding a message with the 7-argument constructor drops them, and a dynamic-bucket table
   * must not lose its assignments).
   */
  public CommitMessage withBaseSnapshotId(long base) {
    return new CommitMessage(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        compactBefore,
        compactAfter,
        base,
        changelogFiles,
        indexHashes);
  }

  /** This message with {@code hashes} as its new index assignments. */
  public CommitMessage withIndexHashes(int[] hashes) {
    return new CommitMessage(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        compactBefore,
        compactAfter,
        baseSnapshotId,
        changelogFiles,
        hashes);
  }

  public boolean isEmpty() {
    return newFiles.isEmpty()
        && compactBefore.isEmpty()
        && compactAfter.isEmpty()
        && changelogFiles.isEmpty();
  }
}
