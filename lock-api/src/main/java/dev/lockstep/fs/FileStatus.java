package dev.lockstep.fs;

import java.util.Objects;

/**
 * What a store knows about one entry.
 *
 * @param path where it is
 * @param length its size in bytes (0 for a directory)
 * @param directory whether it is a directory or, on an object store, a common prefix
 * @param modificationTimeMillis last modification, epoch milliseconds (0 when the store has none)
 */
public record FileStatus(Path path, long length, boolean directory, long modificationTimeMillis) {
  public FileStatus {
    Objects.requireNonNull(path, "path");
  }
}
