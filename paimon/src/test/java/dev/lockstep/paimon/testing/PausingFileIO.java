package dev.lockstep.paimon.testing;

import java.io.IOException;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileIOLoader;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;

/**
 * Lockstep's s3 FileIO with one seam: {@code tryToWriteAtomic} of a snapshot file first runs a hook
 * (which blocks, to hold the commit inside the lock while the test takes the lease away). Handed to
 * Paimon as the catalog's preferred FileIO, so nothing else changes.
 */
public final class PausingFileIO implements FileIO {

  private static final long serialVersionUID = 1L;

  /** What runs before a snapshot file is written. */
  public interface Hook {
    void beforeSnapshotWrite(Path path) throws IOException;
  }

  private final FileIO delegate;
  private final transient Hook hook;

  private PausingFileIO(FileIO delegate, Hook hook) {
    this.delegate = delegate;
    this.hook = hook;
  }

  /** A loader of this FileIO for {@code s3://}. */
  public static FileIOLoader loader(Hook hook) {
    return new FileIOLoader() {
      private static final long serialVersionUID = 1L;

      @Override
      public String getScheme() {
        return "s3";
      }

      @Override
      public FileIO load(Path path) {
        return new PausingFileIO(new dev.lockstep.paimon.fs.LockstepS3Loader().load(path), hook);
      }
    };
  }

  @Override
  public boolean tryToWriteAtomic(Path path, String content) throws IOException {
    if (path.getName().startsWith("snapshot-") && hook != null) {
      hook.beforeSnapshotWrite(path);
    }
    return delegate.tryToWriteAtomic(path, content);
  }

  @Override
  public boolean isObjectStore() {
    return delegate.isObjectStore();
  }

  @Override
  public void configure(CatalogContext context) {
    delegate.configure(context);
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    return delegate.newInputStream(path);
  }

  @Override
  public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    return delegate.newOutputStream(path, overwrite);
  }

  @Override
  public FileStatus getFileStatus(Path path) throws IOException {
    return delegate.getFileStatus(path);
  }

  @Override
  public FileStatus[] listStatus(Path path) throws IOException {
    return delegate.listStatus(path);
  }

  @Override
  public boolean exists(Path path) throws IOException {
    return delegate.exists(path);
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
  public boolean rename(Path src, Path dst) throws IOException {
    return delegate.rename(src, dst);
  }

  @Override
  public void overwriteFileUtf8(Path path, String content) throws IOException {
    delegate.overwriteFileUtf8(path, content);
  }
}
