package dev.lockstep.fs.s3;

import dev.lockstep.fs.Path;

/**
 * A {@link Path} {@code s3://bucket/a/b} (or {@code s3a://}) as a bucket and an object key {@code
 * a/b}. The key is the path part without its leading slash, byte for byte: nothing is URL-encoded or
 * decoded here (the SDK encodes keys on the wire). The bucket root has the empty key.
 */
record S3Location(String bucket, String key) {

  static S3Location of(Path path) {
    String scheme = path.scheme();
    if (scheme == null || !(scheme.equals("s3") || scheme.equals("s3a"))) {
      throw new IllegalArgumentException("The S3 store serves s3:// and s3a:// paths, not " + path);
    }
    String bucket = path.authority();
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("An S3 path names its bucket: " + path
          + ". Write s3://bucket/path.");
    }
    String part = path.pathPart();
    return new S3Location(bucket, part.startsWith("/") ? part.substring(1) : part);
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
