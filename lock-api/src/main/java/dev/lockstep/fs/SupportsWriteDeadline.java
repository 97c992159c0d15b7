package dev.lockstep.fs;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;

/**
 * Capability: a whole-content write whose request carries a deadline the store client enforces, so
 * that a writer paused past its lock lease cannot have a half-sent write applied long after.
 *
 * <p>The commit protocol uses it for plain writes under a lock (a store with neither atomic create
 * nor atomic rename): the deadline is the lease time left minus {@code commit.lease-margin}. It
 * narrows, but cannot close, the window of a request that was sent whole just before the deadline
 * and is applied by the server just after; only {@link SupportsAtomicCreate} closes that.
 */
public interface SupportsWriteDeadline extends FileIO {

  /**
   * Writes {@code content} at {@code path} unless {@code timeout} runs out first.
   *
   * <ul>
   *   <li>After success: {@code path} holds {@code content}.
   *   <li>After {@link FileAlreadyExistsException} ({@code overwrite=false}, not atomic): something
   *       was there; nothing was written.
   *   <li>After {@link UncertainWriteException} (deadline hit while the request was in flight, or
   *       the answer lost): the content may or may not be there.
   *   <li>After another {@link IOException}: nothing was written (for example, the deadline had
   *       passed before anything was sent).
   * </ul>
   */
  void writeWithin(Path path, byte[] content, boolean overwrite, Duration timeout)
      throws IOException;
}
