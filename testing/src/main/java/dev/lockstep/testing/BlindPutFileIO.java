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
 * <p>{@link #bare} leaves out even that existence check: every write is a PUT that replaces. A test
 * that pauses a holder between the lock's checks and its write uses it so that nothing but the
 * lock's fencing stands between the paused holder and another holder's file (a check-then-put would
 * check again after the fence and catch the same pause by itself).
 *
 * <p>Every other call goes to the delegate unchanged.
 */
public class BlindPutFileIO extends CapabilityHidingFileIO {

  private final boolean checkBeforePut;

  /** A check-then-put view of {@code delegate}. */
  public BlindPutFileIO(FileIO delegate) {
    this(delegate, true);
  }

  /**
   * @param checkBeforePut whether {@code overwrite=false} checks existence before its blind put
   */
  protected BlindPutFileIO(FileIO delegate, boolean checkBeforePut) {
    super(delegate);
    this.checkBeforePut = checkBeforePut;
  }

  /** A view of {@code delegate} whose every write is a PUT with replace, without any check. */
  public static BlindPutFileIO bare(FileIO delegate) {
    return new BlindPutFileIO(delegate, false);
  }

  /**
   * Before: anything at {@code path}. After close: our bytes at {@code path}, replacing whatever
   * was put there after the existence check. After a failure: what the delegate leaves after a
   * failed {@code overwrite=true} write.
   *
   * @throws FileAlreadyExistsException when {@code overwrite=false}, {@code path} exists at open
   *     and this view checks before its put (not {@link #bare})
   */
  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    if (!overwrite && checkBeforePut && delegate().exists(path)) {
      throw new FileAlreadyExistsException(path.toString(), null, "checked before a blind put");
    }
    return delegate().newOutputStream(path, true);
  }
}
