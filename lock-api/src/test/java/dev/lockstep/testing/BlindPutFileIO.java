package dev.lockstep.testing;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;

/**
 * An object store without conditional writes, for tests only: it is neither {@link
 * SupportsAtomicCreate} nor {@link SupportsAtomicRename}, and a plain write is a blind PUT.
 *
 * <p>{@code newOutputStream(path, false)} is check-then-put: it asks {@link #exists} when the
 * stream opens, then writes with replace ({@code overwrite=true}), so the bytes land at close over
 * whatever another writer put there meanwhile. The delegate's own "create if absent" ({@code
 * link(2)} in {@code LocalFileIO}) therefore never decides a race: only a lock (and its fencing)
 * keeps two writers of one snapshot apart. Hiding the mixins alone ({@link CapabilityHidingFileIO})
 * is not enough for that, since the local store's plain write is itself atomic.
 *
 * <p>Every other call goes to the delegate unchanged.
 */
public class BlindPutFileIO extends CapabilityHidingFileIO {

  /** A blind-put view of {@code delegate}. */
  public BlindPutFileIO(FileIO delegate) {
    super(delegate);
  }

  /**
   * Before: anything at {@code path}. After close: our bytes at {@code path}, replacing whatever was
   * put there after the existence check. After a failure: what the delegate leaves after a failed
   * {@code overwrite=true} write.
   *
   * @throws FileAlreadyExistsException when {@code overwrite=false} and {@code path} exists at open
   */
  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    if (!overwrite && exists(path)) {
      throw new FileAlreadyExistsException(path.toString(), null, "checked before a blind put");
    }
    return delegate().newOutputStream(path, true);
  }
}
