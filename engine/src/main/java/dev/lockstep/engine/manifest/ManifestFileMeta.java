package dev.lockstep.engine.manifest;

/**
 * A manifest file, as a manifest list names it.
 *
 * @param snapshotId the snapshot that committed the entries, given to files whose own commit
 *     snapshot is unset; -1 when every entry carries its own (merged manifests)
 * @param partitionStats the min, max and null count of each partition column over the manifest's
 *     entries (encoded by {@code format.StatsCodec} over the table's partition type), so that a
 *     scan skips manifests of other partitions unread; {@code null} when unknown (manifests listed
 *     before partition statistics, unpartitioned tables)
 */
public record ManifestFileMeta(
    String fileName,
    long fileSize,
    long numAdded,
    long numDeleted,
    long snapshotId,
    byte[] partitionStats) {

  /** A manifest without partition statistics. */
  public ManifestFileMeta(
      String fileName, long fileSize, long numAdded, long numDeleted, long snapshotId) {
    this(fileName, fileSize, numAdded, numDeleted, snapshotId, null);
  }

  /** The same manifest, its entries committed by snapshot {@code id}. */
  public ManifestFileMeta withSnapshotId(long id) {
    return new ManifestFileMeta(fileName, fileSize, numAdded, numDeleted, id, partitionStats);
  }

  /** Equal when everything but the partition statistics (derived from the file) is. */
  @Override
  public boolean equals(Object o) {
    return o instanceof ManifestFileMeta m
        && m.fileName.equals(fileName)
        && m.fileSize == fileSize
        && m.numAdded == numAdded
        && m.numDeleted == numDeleted
        && m.snapshotId == snapshotId;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(fileName, fileSize, numAdded, numDeleted, snapshotId);
  }

  @Override
  public String toString() {
    return "ManifestFileMeta[fileName="
        + fileName
        + ", fileSize="
        + fileSize
        + ", numAdded="
        + numAdded
        + ", numDeleted="
        + numDeleted
        + ", snapshotId="
        + snapshotId
        + "]";
  }
}
