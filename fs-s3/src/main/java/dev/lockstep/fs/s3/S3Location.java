package dev.lockstep.fs.s3;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.conditional.ObjectKey;

/**
 * A {@link Path} {@code s3://bucket/a/b} (or {@code s3a://}) as a bucket and an object key {@code
 * a/b}. The key is the path part without its leading slash, byte for byte: nothing is URL-encoded
 * or decoded here (the SDK encodes keys on the wire). The bucket root has the empty key.
 */
record S3Location(String bucket, String key) {

  static S3Location of(Path path) {
    ObjectKey parsed = ObjectKey.parse(path, "S3", "s3://bucket/path", "s3", "s3a");
    return new S3Location(parsed.bucket(), parsed.key());
  }

  boolean isRoot() {
    return key.isEmpty();
  }

  /** The key prefix of this location's children: {@code key/}, or {@code ""} at the bucket root. */
  String childPrefix() {
    return key.isEmpty() ? "" : key + "/";
  }

  @Override
  public String toString() {
    return "s3://" + bucket + "/" + key;
  }
}
