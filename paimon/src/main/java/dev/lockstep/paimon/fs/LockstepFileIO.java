package dev.lockstep.paimon.fs;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.paimon.lock.LockTypeCheck;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;

/**
 * A Paimon {@link org.apache.paimon.fs.FileIO} (1.3 API) served by a Lockstep store (fs-s3 or
 * fs-oss).
 *
 * <p>It holds only the scheme, the store kind and the catalog options, so Paimon can Java-serialize
 * it into a job graph; the store itself is the JVM's shared one ({@link LockstepStores}).
 *
 * <ul>
 *   <li>{@link #tryToWriteAtomic}: one conditional create ({@link AtomicWrite}), the snapshot and
 *       schema commit without a lock.
 *   <li>{@link #newInputStream}: ranged GETs for seeks; {@link #newOutputStream}: buffered,
 *       multipart above the store's threshold, nothing visible before close; with {@code
 *       overwrite=false} atomic on a store with conditional writes.
 *   <li>{@link #rename}: Paimon's object-store meaning: copy to a target that must be absent, then
 *       delete the source; false when the target exists or the source is missing. Not atomic (no
 *       object store renames atomically); Paimon's commit does not depend on it here.
 *   <li>{@link #listStatus} of a missing directory is empty, as on Paimon's other object stores.
 *   <li>{@link #configure} refuses, with one line, an option the store cannot honour and a {@code
 *       lock.type} that names no lock factory ({@link LockTypeCheck}).
 * </ul>
 */
public final class LockstepFileIO implements org.apache.paimon.fs.FileIO {

  private static final long serialVersionUID = 1L;

  private final StoreKind kind;
  private HashMap<String, String> options = new HashMap<>();

  LockstepFileIO(StoreKind kind) {
    this.kind = kind;
  }

  @Override
  public boolean isObjectStore() {
    return true;
  }

  @Override
  public void configure(CatalogContext context) {
    this.options = new HashMap<>(context.options().toMap());
    kind.lockstepOptions(options); // fails fast on an option the store cannot honour
    // A lock.type no factory claims: one line now, instead of Paimon's multi-line lookup failure at
    // the first table operation, which no Lockstep code can reword.
    LockTypeCheck.check(context.options(), isObjectStore());
  }

  private FileIO store(Path path) throws IOException {
    return LockstepStores.forPath(kind, path, options);
  }

  private static Path lockstep(org.apache.paimon.fs.Path path) {
    return Path.of(path.toString());
  }

  private static org.apache.paimon.fs.Path paimon(Path path) {
    return new org.apache.paimon.fs.Path(path.toString());
  }

  @Override
  public SeekableInputStream newInputStream(org.apache.paimon.fs.Path path) throws IOException {
    Path location = lockstep(path);
    return PaimonInputStream.of(store(location).newInputStream(location));
  }

  @Override
  public PositionOutputStream newOutputStream(org.apache.paimon.fs.Path path, boolean overwrite)
      throws IOException {
    Path location = lockstep(path);
    return new PaimonOutputStream(store(location).newOutputStream(location, overwrite));
  }

  @Override
  public FileStatus getFileStatus(org.apache.paimon.fs.Path path) throws IOException {
    Path location = lockstep(path);
    return PaimonFileStatus.of(store(location).getStatus(location));
  }

  @Override
  public FileStatus[] listStatus(org.apache.paimon.fs.Path path) throws IOException {
    Path location = lockstep(path);
    List<FileStatus> result = new ArrayList<>();
    for (dev.lockstep.fs.FileStatus child : store(location).list(location)) {
      if (child.directory() || !child.path().name().equals(DIRECTORY_MARKER)) {
        result.add(PaimonFileStatus.of(child));
      }
    }
    return result.toArray(new FileStatus[0]);
  }

  @Override
  public boolean exists(org.apache.paimon.fs.Path path) throws IOException {
    Path location = lockstep(path);
    return store(location).exists(location);
  }

  @Override
  public boolean delete(org.apache.paimon.fs.Path path, boolean recursive) throws IOException {
    Path location = lockstep(path);
    return store(location).delete(location, recursive);
  }

  /**
   * Makes the directory exist for Paimon's {@code exists} checks (the filesystem catalog's
   * databases are directories). The S3 store writes a {@code key/} marker itself; on OSS, where
   * Lockstep's store has no directories, an empty {@value #DIRECTORY_MARKER} file is written into a
   * directory that has nothing under it yet. {@link #listStatus} does not show that file.
   */
  @Override
  public boolean mkdirs(org.apache.paimon.fs.Path path) throws IOException {
    Path location = lockstep(path);
    FileIO store = store(location);
    boolean made = store.mkdirs(location);
    if (kind.needsDirectoryMarker() && location.parent() != null && !store.exists(location)) {
      try (OutputStream out = store.newOutputStream(location.child(DIRECTORY_MARKER), true)) {
        out.flush();
      }
    }
    return made;
  }

  /** The empty file that makes a directory exist on a store without directories. */
  static final String DIRECTORY_MARKER = ".lockstep-directory";

  /**
   * Moves a file or a directory tree: each file is copied to a target that must be absent, then the
   * source is deleted.
   *
   * @return false when {@code src} is missing or {@code dst} exists (nothing changed)
   */
  @Override
  public boolean rename(org.apache.paimon.fs.Path src, org.apache.paimon.fs.Path dst)
      throws IOException {
    Path from = lockstep(src);
    Path to = lockstep(dst);
    FileIO source = store(from);
    FileIO target = store(to);
    dev.lockstep.fs.FileStatus status;
    try {
      status = source.getStatus(from);
    } catch (FileNotFoundException e) {
      return false;
    }
    if (target.exists(to)) {
      return false;
    }
    if (!status.directory()) {
      try {
        copy(source, from, target, to);
      } catch (FileAlreadyExistsException e) {
        return false;
      }
      source.delete(from, false);
      return true;
    }
    List<Path[]> moves = new ArrayList<>();
    collectFiles(source, from, to, moves);
    for (Path[] move : moves) {
      copy(source, move[0], target, move[1]);
    }
    source.delete(from, true);
    return true;
  }

  private static void collectFiles(FileIO store, Path from, Path to, List<Path[]> moves)
      throws IOException {
    for (dev.lockstep.fs.FileStatus child : store.list(from)) {
      Path target = to.child(child.path().name());
      if (child.directory()) {
        collectFiles(store, child.path(), target, moves);
      } else {
        moves.add(new Path[] {child.path(), target});
      }
    }
  }

  private static void copy(FileIO source, Path from, FileIO target, Path to) throws IOException {
    try (InputStream in = source.newInputStream(from);
        OutputStream out = target.newOutputStream(to, false)) {
      in.transferTo(out);
    }
  }

  /** One conditional create; see {@link AtomicWrite}. */
  @Override
  public boolean tryToWriteAtomic(org.apache.paimon.fs.Path path, String content)
      throws IOException {
    Path location = lockstep(path);
    return AtomicWrite.write(
        store(location), kind, location, content.getBytes(StandardCharsets.UTF_8), options);
  }

  /** One whole-object PUT: readers see the old or the new content, never a mix. */
  @Override
  public void overwriteFileUtf8(org.apache.paimon.fs.Path path, String content) throws IOException {
    Path location = lockstep(path);
    try (OutputStream out = store(location).newOutputStream(location, true)) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Override
  public String toString() {
    return "LockstepFileIO{" + kind + "}";
  }

  static org.apache.paimon.fs.Path toPaimon(Path path) {
    return paimon(path);
  }
}
