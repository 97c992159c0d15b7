package dev.lockstep.conformance;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.Objects;

/**
 * A store as an object store without conditional writes would be: the kit's lock-strategy commit
 * checks run on it, and so do the project's tests that must fail when the lock is broken, so that
 * only the lock keeps two writers from both winning a snapshot.
 *
 * <ul>
 *   <li>It implements the base {@link FileIO} only, never {@link SupportsAtomicCreate} or {@link
 *       SupportsAtomicRename}, whatever the store declares.
 *   <li>{@code newOutputStream(path, false)} is check-then-put: it asks {@link FileIO#exists} when
 *       the stream opens, then writes with replace ({@code overwrite=true}), so the bytes land at
 *       close over whatever another writer put there meanwhile. The store's own "create if absent"
 *       (a conditional PUT, or {@code link(2)} on a local disk) can never decide a race.
 *   <li>{@link #bare} leaves out even that existence check: every write is a PUT that replaces. A
 *       test that pauses a holder between the lock's checks and its write uses it so that nothing
 *       but the lock's fencing stands between the paused holder and another holder's file (a
 *       check-then-put would check again after the fence and catch the same pause by itself).
 * </ul>
 *
 * Every other call goes to the store unchanged.
 */
public class BlindPutStore implements FileIO {

  private final FileIO delegate;
  private final boolean checkBeforePut;

  /** A check-then-put view of {@code delegate}. */
  public BlindPutStore(FileIO delegate) {
    this(delegate, true);
  }

  /**
   * @param checkBeforePut whether {@code overwrite=false} checks existence before its blind put
   */
  protected BlindPutStore(FileIO delegate, boolean checkBeforePut) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.checkBeforePut = checkBeforePut;
  }

  /** A view of {@code delegate} whose every write is a PUT with replace, without any check. */
  public static BlindPutStore bare(FileIO delegate) {
    return new BlindPutStore(delegate, false);
  }

  /** The wrapped store. */
  public FileIO delegate() {
    return delegate;
  }

  /**
   * Before: anything at {@code path}. After close: our bytes at {@code path}, replacing whatever
   * was put there after the existence check. After a failure: what the store leaves after a failed
   * {@code overwrite=true} write.
   *
   * @throws FileAlreadyExistsException when {@code overwrite=false}, {@code path} exists at open
   *     and this view checks before its put (not {@link #bare})
   */
  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    if (!overwrite && checkBeforePut && delegate.exists(path)) {
      throw new FileAlreadyExistsException(path.toString(), null, "checked before a blind put");
    }
    return delegate.newOutputStream(path, true);
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    return delegate.newInputStream(path);
  }

  @Override
  public FileStatus getStatus(Path path) throws IOException {
    return delegate.getStatus(path);
  }

  @Override
  public boolean exists(Path path) throws IOException {
    return delegate.exists(path);
  }

  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    return delegate.list(directory);
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    return delegate.delete(path, recursive);
  }

  @Override
  public boolean mkdirs(Path path) throws IOException {
    return delegate.mkdirs(path);
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  @Override
  public String toString() {
    return "blind-put(" + delegate + ")";
  }
}
