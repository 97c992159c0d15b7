package dev.lockstep.fs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;

/**
 * Capability: rename a file without ever replacing an existing target, atomically. HDFS; local via
 * {@code link(2)} + {@code unlink(2)}. Not S3 or OSS, where rename is copy + delete.
 */
public interface SupportsAtomicRename extends FileIO {

  /**
   * Renames {@code source} to {@code target} if nothing is at {@code target}.
   *
   * <ul>
   *   <li>After success: {@code target} holds what {@code source} held; {@code source} is gone (a
   *       leftover source after a crash is harmless and may be deleted).
   *   <li>After {@link FileAlreadyExistsException}: {@code target} is untouched and {@code source}
   *       is still there for the caller to delete.
   *   <li>After {@link FileNotFoundException}: {@code source} was missing; nothing changed.
   *   <li>After {@link UncertainWriteException}: read {@code target} back.
   * </ul>
   */
  void renameAtomically(Path source, Path target) throws IOException;
}
