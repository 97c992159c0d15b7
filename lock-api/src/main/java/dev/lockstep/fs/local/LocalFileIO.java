package dev.lockstep.fs.local;

import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The local filesystem ({@code file://} URIs and bare paths), safe across processes, not only
 * threads.
 *
 * <p>{@code Files.move(ATOMIC_MOVE)} replaces an existing target on POSIX, so it cannot decide a
 * race. This store decides races with {@code link(2)}, which the kernel makes fail with {@code
 * EEXIST} when the target exists, whichever process asks:
 *
 * <ol>
 *   <li>{@link #createAtomically}: write a hidden temporary file beside the target and force it to
 *       disk, {@code link(temp, target)}, then delete the temporary file. Readers see nothing or
 *       the whole content.
 *   <li>{@link #renameAtomically}: {@code link(source, target)}, then delete the source.
 *   <li>{@link #newOutputStream}: bytes go to a hidden temporary file and appear at the path only
 *       on close: by {@code link(2)} when {@code overwrite=false} (no replace), by an atomic move
 *       when {@code overwrite=true}.
 * </ol>
 *
 * <p>Temporary files are named {@code .<name>.<uuid>.inprogress}. A failed or interrupted write
 * deletes its temporary file at once (the caller may never close a stream whose write failed); a
 * process killed mid-write leaves one behind, which orphan-file removal deletes. The filesystem
 * must support hard links (every POSIX local filesystem does; some network mounts do not, which
 * fails loudly rather than racing).
 */
public final class LocalFileIO implements SupportsAtomicCreate, SupportsAtomicRename {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LocalFileIO.class);

  static final String TEMP_SUFFIX = ".inprogress";

  /** Maps a {@link Path} ({@code file:///x}, {@code file:/x} or {@code /x}) to a local path. */
  public static java.nio.file.Path toLocal(Path path) {
    String scheme = path.scheme();
    if (scheme == null) {
      String raw = path.toString();
      if (raw.startsWith("file:")) {
        raw = raw.substring("file:".length());
      }
      return java.nio.file.Path.of(raw);
    }
    if (!scheme.equals("file")) {
      throw new IllegalArgumentException("LocalFileIO serves file:// paths only, not " + path);
    }
    if (!path.authority().isEmpty() && !path.authority().equals("localhost")) {
      throw new IllegalArgumentException(
          "A file:// path has no host: " + path + ". Write file:///absolute/path.");
    }
    return java.nio.file.Path.of(path.pathPart());
  }

  private static Path fromLocal(Path parent, java.nio.file.Path child) {
    return parent.child(child.getFileName().toString());
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    java.nio.file.Path local = toLocal(path);
    if (Files.isDirectory(local)) {
      throw new FileNotFoundException(path + " is a directory, not a file");
    }
    try {
      return new LocalInputStream(FileChannel.open(local, StandardOpenOption.READ));
    } catch (NoSuchFileException e) {
      throw notFound(path, e);
    }
  }

  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    java.nio.file.Path target = toLocal(path);
    if (!overwrite && Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new FileAlreadyExistsException(
          path.toString(), null, "the file exists and overwrite=false");
    }
    Files.createDirectories(target.toAbsolutePath().getParent());
    java.nio.file.Path temp = tempBeside(target);
    FileChannel channel =
        FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    return new LocalOutputStream(channel, temp, target, path, overwrite);
  }

  @Override
  public void createAtomically(Path path, byte[] content) throws IOException {
    java.nio.file.Path target = toLocal(path);
    Files.createDirectories(target.toAbsolutePath().getParent());
    java.nio.file.Path temp = tempBeside(target);
    try {
      try (FileChannel channel =
          FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      Files.createLink(target, temp);
    } catch (FileAlreadyExistsException e) {
      throw new FileAlreadyExistsException(
          path.toString(), null, "another writer created it first");
    } finally {
      deleteTemp(temp);
    }
  }

  /**
   * Deletes a temporary file. A failure here must not turn a published file into a reported failure
   * (the contract says a plain IOException means "not published"), so it is logged, not thrown; the
   * hidden leftover is an orphan for orphan-file removal.
   */
  private static void deleteTemp(java.nio.file.Path temp) {
    try {
      Files.deleteIfExists(temp);
    } catch (IOException e) {
      LOG.warn("Could not delete the temporary file {}: {}", temp, e.toString());
    }
  }

  @Override
  public void renameAtomically(Path source, Path target) throws IOException {
    java.nio.file.Path from = toLocal(source);
    java.nio.file.Path to = toLocal(target);
    if (!Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
      throw new FileNotFoundException("Cannot rename " + source + ": it does not exist");
    }
    if (Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("Cannot rename " + source + ": atomic rename is for files only");
    }
    Files.createDirectories(to.toAbsolutePath().getParent());
    try {
      Files.createLink(to, from);
    } catch (FileAlreadyExistsException e) {
      throw new FileAlreadyExistsException(
          target.toString(), source.toString(), "the target exists; the source is left in place");
    } catch (NoSuchFileException e) {
      throw notFound(source, e);
    }
    // The rename happened at link(2); a source left behind is harmless (see the contract).
    deleteTemp(from);
  }

  @Override
  public FileStatus getStatus(Path path) throws IOException {
    try {
      BasicFileAttributes attributes =
          Files.readAttributes(toLocal(path), BasicFileAttributes.class);
      return new FileStatus(
          path,
          attributes.isDirectory() ? 0 : attributes.size(),
          attributes.isDirectory(),
          attributes.lastModifiedTime().toMillis());
    } catch (NoSuchFileException e) {
      throw notFound(path, e);
    }
  }

  @Override
  public boolean exists(Path path) throws IOException {
    // Files.exists answers false when it cannot tell (an I/O error): report the error instead.
    try {
      Files.readAttributes(toLocal(path), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } catch (java.nio.file.FileSystemException e) {
      if ("Not a directory".equals(e.getReason())) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    java.nio.file.Path local = toLocal(directory);
    // One stat call that reports real errors: Files.isDirectory answers false on any I/O error
    // (too many open files, say), which must not pass for "it is a file" or "it is empty".
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(local, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    if (!attributes.isDirectory()) {
      throw new IOException("Cannot list " + directory + ": it is a file");
    }
    List<FileStatus> out = new ArrayList<>();
    try (Stream<java.nio.file.Path> children = Files.list(local)) {
      for (java.nio.file.Path child : (Iterable<java.nio.file.Path>) children::iterator) {
        try {
          BasicFileAttributes a =
              Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
          out.add(
              new FileStatus(
                  fromLocal(directory, child),
                  a.isDirectory() ? 0 : a.size(),
                  a.isDirectory(),
                  a.lastModifiedTime().toMillis()));
        } catch (NoSuchFileException gone) {
          // Deleted between listing and reading its attributes: it is no longer there.
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return out;
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    java.nio.file.Path local = toLocal(path);
    if (!Files.exists(local, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    if (Files.isDirectory(local, LinkOption.NOFOLLOW_LINKS) && recursive) {
      try (Stream<java.nio.file.Path> walk = Files.walk(local)) {
        for (java.nio.file.Path p :
            (Iterable<java.nio.file.Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(p);
        }
      }
      return true;
    }
    try {
      return Files.deleteIfExists(local);
    } catch (DirectoryNotEmptyException e) {
      throw new IOException(
          "Cannot delete " + path + ": the directory is not empty and" + " recursive=false", e);
    }
  }

  @Override
  public boolean mkdirs(Path path) throws IOException {
    Files.createDirectories(toLocal(path));
    return true;
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "LocalFileIO";
  }

  static java.nio.file.Path tempBeside(java.nio.file.Path target) {
    return target
        .toAbsolutePath()
        .getParent()
        .resolve("." + target.getFileName() + "." + UUID.randomUUID() + TEMP_SUFFIX);
  }

  private static FileNotFoundException notFound(Path path, Exception cause) {
    FileNotFoundException e = new FileNotFoundException(path + " does not exist");
    e.initCause(cause);
    return e;
  }

  /** Reads through a channel; positioned reads do not move the stream. */
  private static final class LocalInputStream extends SeekableInputStream {
    private final FileChannel channel;

    LocalInputStream(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public void seek(long position) throws IOException {
      channel.position(position);
    }

    @Override
    public long position() throws IOException {
      return channel.position();
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      return channel.read(ByteBuffer.wrap(b, off, len));
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
      ByteBuffer target = ByteBuffer.wrap(buffer, offset, length);
      long at = position;
      while (target.hasRemaining()) {
        int n = channel.read(target, at);
        if (n < 0) {
          throw new java.io.EOFException(
              "Reached the end after "
                  + (at - position)
                  + " of "
                  + length
                  + " bytes at position "
                  + position);
        }
        at += n;
      }
    }

    @Override
    public long skip(long n) throws IOException {
      long size = channel.size();
      long from = channel.position();
      long to = Math.min(size, from + Math.max(0, n));
      channel.position(to);
      return to - from;
    }

    @Override
    public int available() throws IOException {
      return (int) Math.min(Integer.MAX_VALUE, Math.max(0, channel.size() - channel.position()));
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /** Writes to a hidden temporary file and publishes it on close. */
  private static final class LocalOutputStream extends OutputStream {
    private final FileChannel channel;
    private final java.nio.file.Path temp;
    private final java.nio.file.Path target;
    private final Path path;
    private final boolean overwrite;
    private boolean closed;
    private boolean failed;

    LocalOutputStream(
        FileChannel channel,
        java.nio.file.Path temp,
        java.nio.file.Path target,
        Path path,
        boolean overwrite) {
      this.channel = channel;
      this.temp = temp;
      this.target = target;
      this.path = path;
      this.overwrite = overwrite;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (closed) {
        throw new IOException("The stream to " + path + " is closed");
      }
      ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
      try {
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
      } catch (IOException | RuntimeException e) {
        // An interrupt closes the channel (ClosedByInterruptException), and a writer that failed
        // may never close this stream (Parquet's does not after a failed write): delete the
        // temporary file now, not at a close that may never come.
        failed = true;
        discard(e);
        throw e;
      }
    }

    /** Closes the channel and deletes the temporary file; nothing will be published. */
    private void discard(Exception failure) {
      try {
        channel.close();
      } catch (IOException e) {
        failure.addSuppressed(e);
      }
      deleteTemp(temp);
    }

    /**
     * Publishes the bytes, unless a write failed or was interrupted (a closed-by-interrupt
     * channel): then the temporary file is deleted and nothing appears at the path, so that a
     * try-with-resources block around a failed write never publishes a torn file.
     */
    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        boolean intact = !failed && channel.isOpen();
        channel.close();
        if (!intact) {
          throw new IOException(
              "Nothing was published at "
                  + path
                  + ": a write to it failed or was"
                  + " interrupted");
        }
        if (overwrite) {
          try {
            Files.move(
                temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
          } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
          }
        } else {
          try {
            Files.createLink(target, temp);
          } catch (FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(
                path.toString(), null, "another writer created it first and overwrite=false");
          }
        }
      } finally {
        deleteTemp(temp);
      }
    }
  }
}
