package dev.lockstep.fs.hdfs;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.fs.UncertainWriteException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.ipc.RemoteException;

/**
 * HDFS (and {@code viewfs} over HDFS): declares {@link SupportsAtomicRename} only.
 *
 * <p>Rename goes through {@link FileContext#rename(org.apache.hadoop.fs.Path,
 * org.apache.hadoop.fs.Path, Options.Rename...)} with {@link Options.Rename#NONE}: the NameNode
 * performs it as one step under its namespace lock and refuses it with {@code
 * FileAlreadyExistsException} when the target exists. The old {@code FileSystem.rename} answers
 * only "false" for both a missing source and an existing target; this store never needs to guess
 * which.
 *
 * <p>Why no {@link dev.lockstep.fs.SupportsAtomicCreate}: {@code create(overwrite=false)} is
 * decided atomically at the NameNode, but the file is visible while it is being written, so a
 * reader can see a torn snapshot. A create-if-absent that publishes whole content on HDFS is
 * write-temp + rename without replace, which is exactly the {@code rename} commit strategy;
 * declaring it twice would add nothing.
 *
 * <p>A rename whose RPC fails (NameNode restart or failover, timeout) may still have been applied:
 * the NameNode's retry cache answers a retried call with the first outcome, but once the client
 * gives up the outcome is unknown, and this store raises {@link UncertainWriteException}. The
 * commit protocol then reads the target back.
 */
public final class HdfsFileIO extends HadoopFileIO implements SupportsAtomicRename {

  private final FileContext fileContext;

  /**
   * @param fileContext the context whose {@code rename(NONE)} refuses an existing target; {@code
   *     null} for a scheme without one (a filesystem the user vouched for with {@code
   *     fs.hdfs.atomic-rename=true}), which then uses {@code FileSystem.rename}
   */
  HdfsFileIO(FileSystem fileSystem, FileContext fileContext, String description) {
    super(fileSystem, description);
    this.fileContext = fileContext;
  }

  @Override
  public void renameAtomically(Path source, Path target) throws IOException {
    org.apache.hadoop.fs.Path from = toHadoop(source);
    org.apache.hadoop.fs.Path to = toHadoop(target);
    if (fileContext == null) {
      renameWithFileSystem(source, target, from, to);
      return;
    }
    try {
      fileContext.rename(from, to, Options.Rename.NONE);
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      throw conflict(source, target, e);
    } catch (FileNotFoundException e) {
      if (!fileSystem().exists(from)) {
        throw e;
      }
      // The target's parent is missing: create it and try once more.
      fileSystem().mkdirs(to.getParent());
      renameOnce(source, target, from, to);
    } catch (ParentNotDirectoryException e) {
      throw new IOException(
          "Cannot rename " + source + " to " + target + ": a parent of the target is a file", e);
    } catch (RemoteException e) {
      IOException unwrapped =
          e.unwrapRemoteException(
              org.apache.hadoop.fs.FileAlreadyExistsException.class, FileNotFoundException.class);
      if (unwrapped instanceof org.apache.hadoop.fs.FileAlreadyExistsException) {
        throw conflict(source, target, unwrapped);
      }
      throw unwrapped;
    } catch (IOException e) {
      throw new UncertainWriteException(target, "the rename RPC failed: " + e, e);
    }
  }

  /**
   * {@code FileSystem.rename} answers only true or false. On a filesystem with HDFS semantics
   * (which the user vouched for) the refusal of an existing target is atomic; after a {@code false}
   * the cause is told apart by looking: a missing source, else an existing target (a conflict).
   */
  private void renameWithFileSystem(
      Path source, Path target, org.apache.hadoop.fs.Path from, org.apache.hadoop.fs.Path to)
      throws IOException {
    if (!fileSystem().exists(from)) {
      throw new FileNotFoundException("Cannot rename " + source + ": it does not exist");
    }
    fileSystem().mkdirs(to.getParent());
    boolean renamed;
    try {
      renamed = fileSystem().rename(from, to);
    } catch (FileNotFoundException e) {
      throw e;
    } catch (IOException e) {
      throw new UncertainWriteException(target, "the rename call failed: " + e, e);
    }
    if (renamed) {
      return;
    }
    if (!fileSystem().exists(from)) {
      throw new FileNotFoundException("Cannot rename " + source + ": it does not exist");
    }
    if (fileSystem().exists(to)) {
      throw conflict(source, target, null);
    }
    throw new IOException(
        "Rename of "
            + source
            + " to "
            + target
            + " was refused by "
            + fileSystem().getUri()
            + " for no reason it states");
  }

  private void renameOnce(
      Path source, Path target, org.apache.hadoop.fs.Path from, org.apache.hadoop.fs.Path to)
      throws IOException {
    try {
      fileContext.rename(from, to, Options.Rename.NONE);
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      throw conflict(source, target, e);
    } catch (FileNotFoundException e) {
      throw e;
    } catch (IOException e) {
      throw new UncertainWriteException(target, "the rename RPC failed: " + e, e);
    }
  }

  private static FileAlreadyExistsException conflict(Path source, Path target, Exception cause) {
    FileAlreadyExistsException e =
        new FileAlreadyExistsException(
            target.toString(), source.toString(), "the target exists; the source is left in place");
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }
}
