package dev.lockstep.bench.lockstep;

import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The local store ({@link LocalFileIO}, with both of its atomic capabilities, so that the commit
 * strategy is the same as without it) counting what the engine does with it, by kind of file: for
 * the history part of {@code ScaleBench}, which reports what each measured commit read, wrote and
 * listed. Counting costs an atomic add per call and per buffer.
 */
public final class CountingFileIO implements SupportsAtomicCreate, SupportsAtomicRename {

  /** The kinds of file counted apart. */
  public enum Kind {
    /** {@code snapshot/}: snapshot files and the LATEST / EARLIEST hints. */
    SNAPSHOT,
    /** {@code manifest/manifest-list-*}. */
    MANIFEST_LIST,
    /** {@code manifest/} otherwise: manifests (and index files). */
    MANIFEST,
    /** Everything else: data files, schemas. */
    OTHER
  }

  /** What is counted per kind. */
  public enum Count {
    OPENS,
    BYTES_READ,
    FILES_WRITTEN,
    BYTES_WRITTEN,
    LISTINGS,
    LISTED_ENTRIES,
    STATUS_CALLS,
    DELETES
  }

  /** Snapshot publishes through {@link #createAtomically}, and their wall time (fsync included). */
  public static final int PUBLISHES = Kind.values().length * Count.values().length;

  public static final int PUBLISH_NANOS = PUBLISHES + 1;

  private static final int SLOTS = PUBLISH_NANOS + 1;

  private final LocalFileIO local = new LocalFileIO();
  private final AtomicLongArray counts = new AtomicLongArray(SLOTS);

  /** All counters now (index with {@link #index}, {@link #PUBLISHES}, {@link #PUBLISH_NANOS}). */
  public long[] snapshot() {
    long[] out = new long[SLOTS];
    for (int i = 0; i < SLOTS; i++) {
      out[i] = counts.get(i);
    }
    return out;
  }

  public static int index(Kind kind, Count count) {
    return kind.ordinal() * Count.values().length + count.ordinal();
  }

  static Kind kind(Path path) {
    Path parent = path.parent();
    String dir = parent == null ? "" : parent.name();
    if (dir.equals("snapshot")) {
      return Kind.SNAPSHOT;
    }
    if (dir.equals("manifest")) {
      return path.name().startsWith("manifest-list-") ? Kind.MANIFEST_LIST : Kind.MANIFEST;
    }
    return Kind.OTHER;
  }

  private void add(Path path, Count count, long n) {
    counts.addAndGet(index(kind(path), count), n);
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    SeekableInputStream in = local.newInputStream(path);
    add(path, Count.OPENS, 1);
    int slot = index(kind(path), Count.BYTES_READ);
    return new SeekableInputStream() {
      @Override
      public void seek(long position) throws IOException {
        in.seek(position);
      }

      @Override
      public long position() throws IOException {
        return in.position();
      }

      @Override
      public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
          counts.addAndGet(slot, 1);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
          counts.addAndGet(slot, n);
        }
        return n;
      }

      @Override
      public void readFully(long position, byte[] buffer, int offset, int length)
          throws IOException {
        in.readFully(position, buffer, offset, length);
        counts.addAndGet(slot, length);
      }

      @Override
      public long skip(long n) throws IOException {
        return in.skip(n);
      }

      @Override
      public int available() throws IOException {
        return in.available();
      }

      @Override
      public void close() throws IOException {
        in.close();
      }
    };
  }

  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    OutputStream out = local.newOutputStream(path, overwrite);
    int slot = index(kind(path), Count.BYTES_WRITTEN);
    return new FilterOutputStream(out) {
      @Override
      public void write(int b) throws IOException {
        out.write(b);
        counts.addAndGet(slot, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        counts.addAndGet(slot, len);
      }

      @Override
      public void close() throws IOException {
        out.close();
        add(path, Count.FILES_WRITTEN, 1);
      }
    };
  }

  @Override
  public void createAtomically(Path path, byte[] content) throws IOException {
    long t = System.nanoTime();
    try {
      local.createAtomically(path, content);
      add(path, Count.FILES_WRITTEN, 1);
      add(path, Count.BYTES_WRITTEN, content.length);
    } finally {
      counts.addAndGet(PUBLISHES, 1);
      counts.addAndGet(PUBLISH_NANOS, System.nanoTime() - t);
    }
  }

  @Override
  public void renameAtomically(Path source, Path target) throws IOException {
    local.renameAtomically(source, target);
  }

  @Override
  public FileStatus getStatus(Path path) throws IOException {
    add(path, Count.STATUS_CALLS, 1);
    return local.getStatus(path);
  }

  @Override
  public boolean exists(Path path) throws IOException {
    add(path, Count.STATUS_CALLS, 1);
    return local.exists(path);
  }

  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    List<FileStatus> listed = local.list(directory);
    // A listing of directory d counts under the kind of a file in d.
    Path child = directory.child("x");
    add(child, Count.LISTINGS, 1);
    add(child, Count.LISTED_ENTRIES, listed.size());
    return listed;
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    add(path, Count.DELETES, 1);
    return local.delete(path, recursive);
  }

  @Override
  public boolean mkdirs(Path path) throws IOException {
    return local.mkdirs(path);
  }

  @Override
  public void close() {
    local.close();
  }

  @Override
  public String toString() {
    return local.toString();
  }
}
