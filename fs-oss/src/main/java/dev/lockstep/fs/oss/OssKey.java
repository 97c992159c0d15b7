package dev.lockstep.fs.oss;

import dev.lockstep.fs.Path;

/**
 * Where a {@link Path} lives in OSS: {@code oss://bucket/a/b} is key {@code a/b} of bucket {@code
 * bucket}; {@code oss://bucket} and {@code oss://bucket/} are the bucket root (key {@code ""}).
 */
record OssKey(String bucket, String key) {

  static OssKey of(Path path) {
    if (!"oss".equals(path.scheme())) {
      throw new IllegalArgumentException("OssFileIO serves oss://bucket/key paths, not " + path);
    }
    String bucket = path.authority();
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("An OSS path names its bucket: oss://bucket/key, not "
          + path);
    }
    String part = path.pathPart();
    return new OssKey(bucket, part.startsWith("/") ? part.substring(1) : part);
  }

  boolean isRoot() {
    return key.isEmpty();
  }

  /** The prefix of everything under this key as a directory: {@code key/}, or {@code ""}. */
  String directoryPrefix() {
    return key.isEmpty() ? "" : key + "/";
  }
}
