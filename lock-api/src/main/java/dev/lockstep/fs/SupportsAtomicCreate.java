package dev.lockstep.fs;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;

/**
 * Capability: publish bytes at a path if and only if nothing is there, as one atomic step that
 * every client sees, with the content whole.
 *
 * <p>S3 {@code If-None-Match: *}, OSS {@code x-oss-forbid-overwrite: true}, local temp file +
 * {@code link(2)}. HDFS {@code create(overwrite=false)} does <em>not</em> qualify: readers can see
 * a partly written file.
 */
public interface SupportsAtomicCreate extends FileIO {

  /**
   * Creates {@code path} with {@code content} if nothing is there.
   *
   * <ul>
   *   <li>Before: anything.
   *   <li>After success: {@code path} holds exactly {@code content}; no concurrent caller
   *       succeeded.
   *   <li>After {@link FileAlreadyExistsException}: someone else's file is there; ours was not
   *       published, and nothing of ours is left behind.
   *   <li>After {@link UncertainWriteException}: ours may or may not be there; read it back.
   *   <li>After another {@link IOException}: ours was not published.
   * </ul>
   */
  void createAtomically(Path path, byte[] content) throws IOException;
}
