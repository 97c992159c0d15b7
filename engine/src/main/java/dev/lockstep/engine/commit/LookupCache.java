package dev.lockstep.engine.commit;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code lookup} changelog producer's cache: the decoded rows of committed data files (files
 * never change, so an entry never goes stale), least recently used evicted first once the estimated
 * bytes exceed {@code lookup.cache-max-memory-size}. A file larger than the bound is read from the
 * store each time and not kept. No local disk is used (docs/engine.md, "Changelog and streaming
 * reads"). Not thread-safe: one per {@link TableCommit}.
 */
final class LookupCache {

  private final TableStore table;
  private final long maxBytes;
  private final LinkedHashMap<String, Entry> files = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;
  private long hits;
  private long misses;

  private record Entry(GenericRow[] rows, long bytes) {}

  LookupCache(TableStore table) {
    this.table = table;
    this.maxBytes = table.changelogOptions().lookupCacheMaxMemory();
  }

  /** Bytes the cache holds now (estimated). */
  long bytes() {
    return bytes;
  }

  long hits() {
    return hits;
  }

  long misses() {
    return misses;
  }

  /** The rows of a committed file of bucket {@code id}, from the cache or the store. */
  FormatReader open(BucketId id, DataFileMeta file) throws IOException {
    String key = id.directory() + "/" + file.fileName();
    Entry entry = files.get(key);
    if (entry != null) {
      hits++;
      return reader(entry.rows());
    }
    misses++;
    List<GenericRow> rows = new ArrayList<>();
    long size = 0;
    try (FormatReader reader =
        table
            .format()
            .createReader(
                table.fileIO(),
                table.bucketPath(id.partition(), id.bucket()).child(file.fileName()),
                table.dataFileRowType())) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        rows.add(r);
        size += r.estimatedBytes();
      }
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
