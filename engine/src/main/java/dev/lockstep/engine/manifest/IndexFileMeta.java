package dev.lockstep.engine.manifest;

import java.io.Serializable;
import java.util.Objects;

/**
 * One index file of a bucket, as an index manifest names it (Paimon's index manifest entry).
 *
 * @param partition the partition path, {@code ""} when unpartitioned
 * @param bucket the bucket the file indexes
 * @param indexType {@link #HASH} (the key-hash index of dynamic buckets) or {@link
 *     #DELETION_VECTORS} (the deletion vectors of one bucket's data files)
 * @param fileName the file's name in {@code manifest/}
 * @param fileSize bytes
 * @param rowCount entries (key hashes for {@code HASH}, deleted rows for {@code DELETION_VECTORS})
 */
public record IndexFileMeta(
    String partition, int bucket, String indexType, String fileName, long fileSize, long rowCount)
    implements Serializable {

  /** The key-hash index of dynamic buckets: 4-byte key hashes of one bucket. */
  public static final String HASH = "HASH";

  /**
   * The deletion vectors of one bucket at one snapshot: for every live data file of the bucket, the
   * positions of its rows that a read skips (index.DeletionVectorFile).
   */
  public static final String DELETION_VECTORS = "DELETION_VECTORS";

  public IndexFileMeta {
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(indexType, "indexType");
    Objects.requireNonNull(fileName, "fileName");
  }
}
