package dev.lockstep.engine.manifest;

import java.io.Serializable;
import java.util.Objects;

/**
 * One immutable data file of a bucket.
 *
 * @param fileName unique name inside the bucket directory
 * @param fileSize bytes
 * @param rowCount rows in the file
 * @param minKey smallest primary key (encoded), {@code null} in append tables
 * @param maxKey largest primary key (encoded), {@code null} in append tables
 * @param minSequence smallest in-commit sequence number of a row
 * @param maxSequence largest in-commit sequence number of a row
 * @param schemaId the schema version the file was written with
 * @param level LSM level: 0 for flushed runs (and every append file), 1.. for compaction output
 * @param creationTimeMillis when the writer created it
 * @param commitSnapshot the snapshot that committed the rows with an implicit snapshot (see the
 *     module README, "Ordering"); {@link #UNCOMMITTED} while the file is not yet committed
 * @param valueStats the min, max and null count of each table column over the file's rows, encoded
 *     by {@code format.StatsCodec} over the row type of schema {@code schemaId}; {@code null} when
 *     the file has none (written before statistics, or with {@code metadata.stats-mode} none)
 */
public record DataFileMeta(
    String fileName,
    long fileSize,
    long rowCount,
    byte[] minKey,
    byte[] maxKey,
    long minSequence,
    long maxSequence,
    long schemaId,
    int level,
    long creationTimeMillis,
    long commitSnapshot,
    byte[] valueStats)
    implements Serializable {

  /** The commit snapshot of a file that is not committed yet. */
  public static final long UNCOMMITTED = -1;

  /**
   * The order in which the rows of an append bucket's files are read: by commit snapshot, then by
   * the first and last sequence number, then by name (a total order). Compaction outputs take their
   * inputs' place in it ({@code compact.AppendCompaction}).
   */
  public static final java.util.Comparator<DataFileMeta> APPEND_ORDER =
      java.util.Comparator.comparingLong(DataFileMeta::commitSnapshot)
          .thenComparingLong(DataFileMeta::minSequence)
          .thenComparingLong(DataFileMeta::maxSequence)
          .thenComparing(DataFileMeta::fileName);

  public DataFileMeta {
    Objects.requireNonNull(fileName, "fileName");
  }

  /** A file without column statistics. */
  public DataFileMeta(
      String fileName,
      long fileSize,
      long rowCount,
      byte[] minKey,
      byte[] maxKey,
      long minSequence,
      long maxSequence,
      long schemaId,
      int level,
      long creationTimeMillis,
      long commitSnapshot) {
    this(
        fileName,
        fileSize,
        rowCount,
        minKey,
        maxKey,
        minSequence,
        maxSequence,
        schemaId,
        level,
        creationTimeMillis,
        commitSnapshot,
        null);
  }

  /** The same file as committed by snapshot {@code snapshotId}. */
  public DataFileMeta withCommitSnapshot(long snapshotId) {
    return new DataFileMeta(
        fileName,
        fileSize,
        rowCount,
        minKey,
        maxKey,
        minSequence,
        maxSequence,
        schemaId,
        level,
        creationTimeMillis,
        snapshotId,
        valueStats);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DataFileMeta && ((DataFileMeta) o).fileName.equals(fileName);
  }

  @Override
  public int hashCode() {
    return fileName.hashCode();
  }

  @Override
  public String toString() {
    return fileName
        + "(level "
        + level
        + ", "
        + rowCount
        + " rows, snapshot "
        + commitSnapshot
        + ")";
  }
}
