package dev.lockstep.testing;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Objects;

/**
 * Shows only the base {@link FileIO} of a store, for tests only: it is neither {@link
 * SupportsAtomicCreate} nor {@link SupportsAtomicRename}, whatever the delegate is. It stands for
 * an object store without conditional writes, so that tests can check that the commit protocol
 * refuses to commit without a lock and commits safely with one.
 *
 * <p>{@link #atomicCreateOnly} and {@link #atomicRenameOnly} keep exactly one capability, to drive
 * {@code commit.strategy=auto} to each primitive on the local store.
 */
public class CapabilityHidingFileIO implements FileIO {

  private final FileIO delegate;

  /** Hides every capability of {@code delegate}. */
  public CapabilityHidingFileIO(FileIO delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** Keeps {@link SupportsAtomicCreate} and hides {@link SupportsAtomicRename}. */
  public static SupportsAtomicCreate atomicCreateOnly(SupportsAtomicCreate delegate) {
    return new CreateOnly(delegate);
  }

  /** Keeps {@link SupportsAtomicRename} and hides {@link SupportsAtomicCreate}. */
  public static SupportsAtomicRename atomicRenameOnly(SupportsAtomicRename delegate) {
    return new RenameOnly(delegate);
  }

  /** The wrapped store. */
  public FileIO delegate() {
    return delegate;
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    return delegate.newInputStream(path);
  }

  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    return delegate.newOutputStream(path, overwrite);
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
    return getClass().getSimpleName() + "(" + delegate + ")";
  }

  private static final class CreateOnly extends CapabilityHidingFileIO
      implements SupportsAtomicCreate {
    private final SupportsAtomicCreate creator;

    CreateOnly(SupportsAtomicCreate delegate) {
      super(delegate);
      this.creator = delegate;
    }

    @Override
    public void createAtomically(Path path, byte[] content) throws IOException {
      creator.createAtomically(path, content);
    }
  }

  private static final class RenameOnly extends CapabilityHidingFileIO
      implements SupportsAtomicRename {
    private final SupportsAtomicRename renamer;

    RenameOnly(SupportsAtomicRename delegate) {
      super(delegate);
      this.renamer = delegate;
    }

    @Override
    public void renameAtomically(Path source, Path target) throws IOException {
      renamer.renameAtomically(source, target);
    }
  }
}
