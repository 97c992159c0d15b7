package dev.lockstep.engine.manifest;

/**
 * A manifest file, as a manifest list names it.
 *
 * @param snapshotId the snapshot that committed the entries, given to files whose own commit
 *     snapshot is unset; -1 when every entry carries its own (merged manifests)
 */
public record ManifestFileMeta(
    String fileName, long fileSize, long numAdded, long numDeleted, long snapshotId) {

  /** The same manifest, its entries committed by snapshot {@code id}. */
  public ManifestFileMeta withSnapshotId(long id) {
    return new ManifestFileMeta(fileName, fileSize, numAdded, numDeleted, id);
  }
}
