package dev.lockstep.engine.manifest;

/**
 * One bucket of a table: its partition (the partition path, {@code ""} for an unpartitioned table)
 * and its bucket number. Data files live in {@link #directory()} below the table's root.
 */
public record BucketId(String partition, int bucket) {

  /** The prefix of every bucket directory's name. */
  public static final String DIRECTORY_PREFIX = "bucket-";

  public BucketId {
    if (partition == null) {
      throw new IllegalArgumentException(
          "A bucket's partition is \"\" when the table has none," + " never null");
    }
    if (bucket < 0) {
      throw new IllegalArgumentException("Bucket numbers start at 0: " + bucket);
    }
  }

  /** The directory name of bucket {@code bucket}: {@code bucket-<n>}. */
  public static String directoryName(int bucket) {
    return DIRECTORY_PREFIX + bucket;
  }

  /** Whether {@code name} is a bucket directory's name. */
  public static boolean isDirectoryName(String name) {
    return name.startsWith(DIRECTORY_PREFIX);
  }

  /** The bucket's directory relative to the table root: {@code [partition/]bucket-<n>}. */
  public String directory() {
    return partition.isEmpty() ? directoryName(bucket) : partition + "/" + directoryName(bucket);
  }

  @Override
  public String toString() {
    return directory();
  }
}
