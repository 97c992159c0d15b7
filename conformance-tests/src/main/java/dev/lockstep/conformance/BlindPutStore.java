package dev.lockstep.conformance;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.Objects;

/**
 * The vendor's store as an object store without conditional writes would be: the lock strategy's
 * commit checks run on it, so that only the lock keeps two writers from both winning a snapshot.
 *
 * <ul>
 *   <li>It implements the base {@link FileIO} only, never a capability mixin, whatever the vendor's
 *       store declares.
 *   <li>{@code newOutputStream(path, false)} is check-then-put: it asks {@link FileIO#exists} when
 *       the stream opens, then writes with replace ({@code overwrite=true}), so the bytes land at
 *       close over whatever another writer put there meanwhile. The store's own "create if absent"
 *       (a conditional PUT, or {@code link(2)} on a local disk) can never decide a race.
 * </ul>
 *
 * Every other call goes to the store unchanged. The kit's main code cannot use lock-api's test
 * fixtures, so it carries this small wrapper.
 */
final class BlindPutStore implements FileIO {

  private final FileIO store;

  private BlindPutStore(FileIO store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /** {@code store} seen as a blind-put object store. */
  static FileIO over(FileIO store) {
    return new BlindPutStore(store);
  }

  /**
   * Before: anything at {@code path}. After close: our bytes at {@code path}, replacing whatever
   * was put there after the existence check. After a failure: what the store leaves after a failed
   * {@code overwrite=true} write.
   *
   * @throws FileAlreadyExistsException when {@code overwrite=false} and the path exists at open
   */
  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    if (!overwrite && store.exists(path)) {
      throw new FileAlreadyExistsException(path.toString(), null, "checked before a blind put");
    }
    return store.newOutputStream(path, true);
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    return store.newInputStream(path);
  }

  @Override
  public FileStatus getStatus(Path path) throws IOException {
    return store.getStatus(path);
  }

  @Override
  public boolean exists(Path path) throws IOException {
    return store.exists(path);
  }

  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    return store.list(directory);
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    return store.delete(path, recursive);
  }

  @Override
  public boolean mkdirs(Path path) throws IOException {
    return store.mkdirs(path);
  }

  @Override
  public void close() throws IOException {
    store.close();
  }

  @Override
  public String toString() {
    return "blind-put(" + store + ")";
  }
}
