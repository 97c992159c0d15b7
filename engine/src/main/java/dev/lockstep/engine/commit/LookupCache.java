package dev.lockstep.engine.commit;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code lookup} changelog producer's cache of committed data files (files never change, so an
 * entry never goes stale), in two tiers (docs/engine.md, "Changelog and streaming reads"):
 *
 * <ul>
 *   <li>memory: the decoded rows, least recently used evicted first once their estimated bytes
 *       exceed {@code lookup.cache-max-memory-size}; a file larger than the bound is not kept;
 *   <li>disk ({@link LookupDiskCache}): a byte-for-byte local copy of every file the lookup reads,
 *       least recently used deleted first so that the copies never exceed {@code
 *       lookup.cache-max-disk-size}. A file not in memory is decoded from its copy; only a file in
 *       neither tier is read from the store (one whole-file read, into the copy). No disk tier when
 *       the bound is 0 or the table's store is the local file system itself.
 * </ul>
 *
 * <p>A failure of the local disk (full, unwritable, a copy that does not parse) never fails a
 * commit: it is logged once, the disk tier is dropped for the life of this cache, and the file is
 * read from the store. Not thread-safe: one per {@link TableCommit}, which closes it.
 */
final class LookupCache implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LookupCache.class);
  private static final FileIO LOCAL = new LocalFileIO();

  private final TableStore table;
  private final long maxBytes;
  private final LinkedHashMap<String, Entry> files = new LinkedHashMap<>(64, 0.75f, true);
  private LookupDiskCache disk;
  private long bytes;
  private long hits;
  private long diskHits;
  private long misses;

  private record Entry(GenericRow[] rows, long bytes) {}

  LookupCache(TableStore table) {
    this.table = table;
    ChangelogOptions options = table.changelogOptions();
    this.maxBytes = options.lookupCacheMaxMemory();
    if (options.lookupCacheMaxDisk() > 0 && !(table.fileIO() instanceof LocalFileIO)) {
      String dir = options.lookupCacheDir();
      this.disk =
          new LookupDiskCache(
              java.nio.file.Path.of(dir == null ? System.getProperty("java.io.tmpdir") : dir),
              options.lookupCacheMaxDisk());
    }
  }

  /** Bytes the memory tier holds now (estimated). */
  long bytes() {
    return bytes;
  }

  /** Bytes of the local copies now; 0 without a disk tier. */
  long diskBytes() {
    return disk == null ? 0 : disk.bytes();
  }

  /** The disk tier's directory; {@code null} when it has none (yet, or any more). */
  java.nio.file.Path diskDirectory() {
    return disk == null ? null : disk.directory();
  }

  /** Opens served from memory. */
  long hits() {
    return hits;
  }

  /** Opens decoded from a local copy. */
  long diskHits() {
    return diskHits;
  }

  /** Opens not served from memory (from a local copy or the store). */
  long misses() {
    return misses;
  }

  /** The rows of a committed file of bucket {@code id}, from memory, a local copy or the store. */
  FormatReader open(BucketId id, DataFileMeta file) throws IOException {
    String key = key(id, file.fileName());
    Entry entry = files.get(key);
    if (entry != null) {
      hits++;
      return reader(entry.rows());
    }
    misses++;
    Path source = table.bucketPath(id.partition(), id.bucket()).child(file.fileName());
    List<GenericRow> rows = disk == null ? null : fromDisk(key, source, file.fileSize());
    if (rows == null) {
      rows = decode(table.fileIO(), source);
    }
    long size = 0;
    for (GenericRow r : rows) {
      size += r.estimatedBytes();
    }
    GenericRow[] array = rows.toArray(GenericRow[]::new);
    if (size <= maxBytes) {
      files.put(key, new Entry(array, size));
      bytes += size;
      Iterator<Map.Entry<String, Entry>> eldest = files.entrySet().iterator();
      while (bytes > maxBytes && eldest.hasNext()) {
        Map.Entry<String, Entry> e = eldest.next();
        bytes -= e.getValue().bytes();
        eldest.remove();
      }
    }
    return reader(array);
  }

  /**
   * Forgets the files of the buckets in {@code directories} that are not in {@code live} (keys
   * {@code <bucket directory>/<file name>}): a file compacted away is never looked up again (until
   * a rollback brings it back, when it is read anew).
   */
  void retainLive(Set<String> directories, Set<String> live) {
    java.util.function.Predicate<String> dead =
        key -> directories.contains(key.substring(0, key.lastIndexOf('/'))) && !live.contains(key);
    Iterator<Map.Entry<String, Entry>> it = files.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, Entry> e = it.next();
      if (dead.test(e.getKey())) {
        bytes -= e.getValue().bytes();
        it.remove();
      }
    }
    if (disk != null) {
      try {
        disk.removeIf(dead);
      } catch (LookupDiskCache.LocalDiskException e) {
        dropDisk(e);
      }
    }
  }

  static String key(BucketId id, String fileName) {
    return id.directory() + "/" + fileName;
  }

  /** Deletes the local copies and their directory. Idempotent. */
  @Override
  public void close() {
    if (disk != null) {
      disk.close();
    }
  }

  /** The rows from the local copy (made now if missing); {@code null}: read the store. */
  private List<GenericRow> fromDisk(String key, Path source, long size) throws IOException {
    java.nio.file.Path local = null;
    try {
      local = disk.get(key);
      if (local != null) {
        List<GenericRow> rows = decode(LOCAL, Path.of(local.toString()));
        diskHits++;
        return rows;
      }
      local = disk.fetch(key, table.fileIO(), source, size);
      return local == null ? null : decode(LOCAL, Path.of(local.toString()));
    } catch (LookupDiskCache.LocalDiskException e) {
      dropDisk(e);
      return null;
    } catch (IOException | RuntimeException e) {
      if (local == null) {
        throw e; // the store failed
      }
      // The local copy does not read back: the disk is not to be trusted.
      dropDisk(e);
      return null;
    }
  }

  private void dropDisk(Exception cause) {
    LOG.warn(
        "The lookup cache stops using its local directory under {} and reads data files from the"
            + " store from now on: {}",
        table.changelogOptions().lookupCacheDir() == null
            ? System.getProperty("java.io.tmpdir")
            : table.changelogOptions().lookupCacheDir(),
        cause.toString());
    LookupDiskCache dropped = disk;
    disk = null;
    dropped.close();
  }

  private List<GenericRow> decode(FileIO io, Path path) throws IOException {
    List<GenericRow> rows = new ArrayList<>();
    try (FormatReader reader = table.format().createReader(io, path, table.dataFileRowType())) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        rows.add(r);
      }
    }
    return rows;
  }

  private static FormatReader reader(GenericRow[] rows) {
    return new FormatReader() {
      private int next;

      @Override
      public GenericRow next() {
        return next < rows.length ? rows[next++] : null;
      }

      @Override
      public void close() {}
    };
  }
}
