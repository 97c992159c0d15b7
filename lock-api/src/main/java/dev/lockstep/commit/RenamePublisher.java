package dev.lockstep.commit;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.fs.UncertainWriteException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.UUID;

/**
 * {@code commit.strategy=rename}: needs no lock.
 *
 * <ol>
 *   <li>Write the content to a temporary file {@code .<name>.<uuid>.tmp} beside the target.
 *   <li>Rename it to the target without replace. A conflict leaves the target untouched.
 *   <li>Delete the temporary file when the rename did not happen (conflict or failure). After an
 *       uncertain rename the temporary file is left alone: it may be the published file's source.
 * </ol>
 */
final class RenamePublisher implements SnapshotPublisher {

  private final SupportsAtomicRename store;

  RenamePublisher(SupportsAtomicRename store) {
    this.store = store;
  }

  @Override
  public String describe() {
    return CommitStrategy.RENAME.value();
  }

  @Override
  public void publish(Path target, byte[] content) throws IOException {
    Path temp = target.parent().child("." + target.name() + "." + UUID.randomUUID() + ".tmp");
    try (OutputStream out = store.newOutputStream(temp, false)) {
      out.write(content);
    } catch (IOException e) {
      deleteQuietly(temp, e);
      throw e;
    }
    try {
      store.renameAtomically(temp, target);
    } catch (UncertainWriteException e) {
      throw e;
    } catch (IOException e) {
      deleteQuietly(temp, e);
      throw e;
    }
  }

  private void deleteQuietly(Path temp, IOException primary) {
    try {
      store.delete(temp, false);
    } catch (IOException cleanup) {
      primary.addSuppressed(cleanup);
    }
  }

  static boolean isConflict(IOException e) {
    return e instanceof FileAlreadyExistsException;
  }
}
