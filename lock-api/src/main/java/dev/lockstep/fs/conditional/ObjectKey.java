package dev.lockstep.fs.conditional;

import dev.lockstep.fs.Path;
import java.util.List;

/**
 * Where a {@link Path} lives in an object store: {@code scheme://bucket/a/b} is key {@code a/b} of
 * bucket {@code bucket}; {@code scheme://bucket} and {@code scheme://bucket/} are the bucket root
 * (key {@code ""}). The key is the path part without its leading slash, byte for byte: nothing is
 * URL-encoded or decoded here (the store's SDK encodes keys on the wire).
 */
public record ObjectKey(String bucket, String key) {

  /**
   * Parses {@code path} for the store named {@code store} (for messages, e.g. {@code OSS}), which
   * serves {@code schemes}; {@code form} is the path form its messages show, e.g. {@code
   * oss://bucket/key}.
   *
   * @throws IllegalArgumentException when the scheme is not one of {@code schemes} or the path
   *     names no bucket, saying what to write instead
   */
  public static ObjectKey parse(Path path, String store, String form, String... schemes) {
    String scheme = path.scheme();
    if (scheme == null || !List.of(schemes).contains(scheme)) {
      throw new IllegalArgumentException(
          "The "
              + store
              + " store serves "
              + String.join(" and ", List.of(schemes).stream().map(s -> s + "://").toList())
              + " paths ("
              + form
              + "), not "
              + path);
    }
    String bucket = path.authority();
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException(
          "An " + store + " path names its bucket: " + path + ". Write " + form + ".");
    }
    String part = path.pathPart();
    return new ObjectKey(bucket, part.startsWith("/") ? part.substring(1) : part);
  }

  /** Whether this is the bucket root. */
  public boolean isRoot() {
    return key.isEmpty();
  }

  /** The key prefix of everything under this key as a directory: {@code key/}, or {@code ""}. */
  public String childPrefix() {
    return key.isEmpty() ? "" : key + "/";
  }
}
