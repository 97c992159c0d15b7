package dev.lockstep.engine.commit;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The disk tier of a {@link LookupCache}: local copies of committed data files, byte for byte (a
 * committed file never changes, so a copy never goes stale), least recently used deleted first so
 * that the bytes of all copies, the one being written included, never exceed {@code maxBytes}.
 *
 * <p>The copies live in a directory of this instance, {@code lockstep-lookup-<uuid>} under {@code
 * parent}, created at the first copy and removed by {@link #close} (or by a {@link Cleaner} when
 * the owner is collected unclosed). Beside it, {@code lockstep-lookup-<uuid>.lock} is held locked
 * (an OS file lock) while this instance lives: a new instance removes every sibling directory whose
 * lock file it can lock, or that has none, so that the directories of dead processes are reclaimed.
 *
 * <p>Every method reports a local failure as {@link LocalDiskException}, and only those: the caller
 * then stops using the tier and reads the store. A failure to read the store passes through as it
 * is. Not thread-safe (one per {@link LookupCache}).
 */
final class LookupDiskCache implements AutoCloseable {

  static final String PREFIX = "lockstep-lookup-";
  private static final String LOCK_SUFFIX = ".lock";
  private static final Cleaner CLEANER = Cleaner.create();

  /**
   * The lock files held by caches of this JVM: never opened by a reclaim (see {@link #reclaim}).
   */
  private static final Set<java.nio.file.Path> HELD = ConcurrentHashMap.newKeySet();

  /** A failure of the local disk (not of the store). */
  static final class LocalDiskException extends IOException {
    LocalDiskException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private record Local(java.nio.file.Path path, long bytes) {}

  private final java.nio.file.Path parent;
  private final long maxBytes;
  private final LinkedHashMap<String, Local> files = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;
  private long written;
  private Directory directory;
  private Cleaner.Cleanable cleanable;

  LookupDiskCache(java.nio.file.Path parent, long maxBytes) {
    this.parent = parent;
    this.maxBytes = maxBytes;
  }

  /** The bytes of the local copies now. */
  long bytes() {
    return bytes;
  }

  /** This instance's directory, {@code null} before the first copy and after {@link #close}. */
  java.nio.file.Path directory() {
    return directory == null ? null : directory.dir;
  }

  /** The local copy of {@code key}, {@code null} when there is none. */
  java.nio.file.Path get(String key) {
    Local local = files.get(key);
    return local == null ? null : local.path();
  }

  /** Deletes the copies whose keys {@code drop} accepts (files no longer live). */
  void removeIf(java.util.function.Predicate<String> drop) throws LocalDiskException {
    Iterator<Map.Entry<String, Local>> it = files.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, Local> e = it.next();
      if (drop.test(e.getKey())) {
        it.remove();
        bytes -= e.getValue().bytes();
        delete(e.getValue().path());
      }
    }
  }

  /**
   * Copies the store file {@code source} of {@code size} bytes to a local file for {@code key},
   * evicting the least recently used copies to make room.
   *
   * @return the local copy, or {@code null} when the file is larger than the bound or not of the
   *     size recorded for it (nothing is kept then)
   * @throws LocalDiskException when the local disk fails (full, unwritable)
   * @throws IOException when the store fails (nothing is kept)
   */
  java.nio.file.Path fetch(String key, FileIO store, Path source, long size) throws IOException {
    if (size > maxBytes) {
      return null;
    }
    Iterator<Map.Entry<String, Local>> eldest = files.entrySet().iterator();
    while (bytes + size > maxBytes && eldest.hasNext()) {
      Local evicted = eldest.next().getValue();
      eldest.remove();
      bytes -= evicted.bytes();
      delete(evicted.path());
    }
    java.nio.file.Path dir = open();
    java.nio.file.Path target = dir.resolve((written++) + "-" + source.name());
    bytes += size; // reserved while writing
    boolean kept = false;
    try (InputStream in = store.newInputStream(source)) {
      OutputStream out = local(() -> Files.newOutputStream(target));
      try {
        byte[] buffer = new byte[64 * 1024];
        long copied = 0;
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          copied += n;
          if (copied > size) {
            return null;
          }
          int length = n;
          local(
              () -> {
                out.write(buffer, 0, length);
                return null;
              });
        }
        kept = copied == size;
      } finally {
        local(
            () -> {
              out.close();
              return null;
            });
      }
    } finally {
      if (!kept) {
        bytes -= size;
        delete(target);
      }
    }
    if (!kept) {
      return null;
    }
    files.put(key, new Local(target, size));
    return target;
  }

  /** Deletes this instance's directory and releases its lock. Idempotent. */
  @Override
  public void close() {
    files.clear();
    bytes = 0;
    if (cleanable != null) {
      cleanable.clean();
      cleanable = null;
      directory = null;
    }
  }

  private java.nio.file.Path open() throws LocalDiskException {
    if (directory != null) {
      return directory.dir;
    }
    String name = PREFIX + UUID.randomUUID();
    Directory d = new Directory(parent.resolve(name), parent.resolve(name + LOCK_SUFFIX));
    try {
      Files.createDirectories(parent);
      reclaim(parent);
      d.channel = FileChannel.open(d.lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      d.lock = d.channel.tryLock();
      HELD.add(d.lockFile);
      Files.createDirectory(d.dir);
    } catch (IOException | RuntimeException e) {
      d.run();
      throw new LocalDiskException("Cannot create a lookup cache directory under " + parent, e);
    }
    directory = d;
    cleanable = CLEANER.register(this, d);
    return d.dir;
  }

  /**
   * Removes the cache directories under {@code parent} left by dead processes: those whose lock
   * file can be locked (the OS released the lock of its dead holder), and those without one. The
   * lock files this JVM holds are skipped without being opened (closing any channel of a file
   * releases the process's locks on it). A directory being set up at this very moment may be taken
   * for a dead one; its owner then sees a local failure and reads the store, nothing worse.
   */
  static void reclaim(java.nio.file.Path parent) {
    try (Stream<java.nio.file.Path> children = Files.list(parent)) {
      for (java.nio.file.Path child : (Iterable<java.nio.file.Path>) children::iterator) {
        String name = child.getFileName().toString();
        if (!name.startsWith(PREFIX)) {
          continue;
        }
        java.nio.file.Path lockFile = child;
        if (name.endsWith(LOCK_SUFFIX)) {
          child = child.resolveSibling(name.substring(0, name.length() - LOCK_SUFFIX.length()));
        } else {
          lockFile = child.resolveSibling(name + LOCK_SUFFIX);
        }
        if (HELD.contains(lockFile)) {
          continue;
        }
        if (!Files.exists(lockFile)) {
          deleteTree(child);
          continue;
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
          FileLock lock = channel.tryLock();
          if (lock != null) {
            deleteTree(child);
            Files.deleteIfExists(lockFile);
            lock.release();
          }
        } catch (OverlappingFileLockException | IOException e) {
          // Held, or gone: not ours to remove.
        }
      }
    } catch (IOException | RuntimeException e) {
      // Reclaiming is best effort.
    }
  }

  private static void deleteTree(java.nio.file.Path root) {
    try (Stream<java.nio.file.Path> all = Files.walk(root)) {
      all.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // Best effort.
                }
              });
    } catch (IOException | RuntimeException e) {
      // Best effort.
    }
  }

  private static void delete(java.nio.file.Path path) throws LocalDiskException {
    local(() -> Files.deleteIfExists(path));
  }

  private interface LocalCall<T> {
    T call() throws IOException;
  }

  private static <T> T local(LocalCall<T> call) throws LocalDiskException {
    try {
      return call.call();
    } catch (IOException | RuntimeException e) {
      throw new LocalDiskException("The lookup cache's local disk failed: " + e, e);
    }
  }

  /** The directory and its lock; the cleanup action (references no cache). */
  private static final class Directory implements Runnable {
    final java.nio.file.Path dir;
    final java.nio.file.Path lockFile;
    FileChannel channel;
    FileLock lock;

    Directory(java.nio.file.Path dir, java.nio.file.Path lockFile) {
      this.dir = dir;
      this.lockFile = lockFile;
    }

    @Override
    public void run() {
      deleteTree(dir);
      try {
        Files.deleteIfExists(lockFile);
      } catch (IOException | RuntimeException e) {
        // Best effort; the next reclaim removes it.
      }
      try {
        if (channel != null) {
          channel.close(); // releases the lock
        }
      } catch (IOException e) {
        // Best effort.
      }
      HELD.remove(lockFile);
    }
  }
}
