package dev.lockstep.fs;

import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;

/**
 * A store: a local filesystem, HDFS, or an object store such as S3 or OSS.
 *
 * <p>The base contract every store keeps:
 *
 * <ol>
 *   <li>Read-after-write: once {@link #newOutputStream} closes without error, every client reads
 *       the new bytes whole.
 *   <li>On object stores nothing written is visible before the output stream closes.
 *   <li>A missing file raises {@link FileNotFoundException}; never {@code null}.
 *   <li>A write whose answer was lost raises {@link UncertainWriteException}, never a plain
 *       failure.
 * </ol>
 *
 * <p>Stronger guarantees are capabilities, found with {@code instanceof}: {@link
 * SupportsAtomicCreate} and {@link SupportsAtomicRename}. A store declares only what truly holds on
 * it; the conformance kit checks the declaration.
 *
 * <p>Implementations are thread-safe.
 */
public interface FileIO extends Closeable {

  /**
   * Opens a file for reading.
   *
   * @throws FileNotFoundException when nothing is at {@code path}, or it is a directory
   */
  SeekableInputStream newInputStream(Path path) throws IOException;

  /**
   * Opens a file for writing. With {@code overwrite=false} an existing file raises {@link
   * FileAlreadyExistsException}; that check is <em>not</em> atomic against a concurrent writer (use
   * {@link SupportsAtomicCreate} for that). On an object store the bytes become visible only when
   * the stream closes; a failed close leaves either the old content or nothing, never a torn file,
   * except where the store documents otherwise.
   *
   * @throws FileAlreadyExistsException when {@code overwrite=false} and the file already exists
   */
  OutputStream newOutputStream(Path path, boolean overwrite) throws IOException;

  /**
   * The status of one file or directory.
   *
   * @throws FileNotFoundException when nothing is there
   */
  FileStatus getStatus(Path path) throws IOException;

  /** Whether a file or directory is at {@code path}. */
  boolean exists(Path path) throws IOException;

  /**
   * The direct children of a directory (files and sub-directories), in no particular order. A
   * missing directory lists as empty: on object stores a directory exists only through its
   * children.
   */
  List<FileStatus> list(Path directory) throws IOException;

  /**
   * Deletes a file, or a directory when {@code recursive} is true (a non-empty directory with
   * {@code recursive=false} raises an {@link IOException}).
   *
   * @return true when something was deleted, false when nothing was there
   */
  boolean delete(Path path, boolean recursive) throws IOException;

  /**
   * Makes a directory and its parents; a no-op on stores without directories.
   *
   * @return true when the directory exists afterwards
   */
  boolean mkdirs(Path path) throws IOException;

  /** Releases clients and threads. Idempotent. */
  @Override
  void close() throws IOException;
}
