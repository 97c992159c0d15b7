package dev.lockstep.engine.commit;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.scan.DeduplicateMerger;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.scan.KeyValue;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.RollingFileWriter;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code lookup} changelog of one APPEND commit, computed against the exact snapshot the commit
 * is built on (docs/engine.md, "Changelog and streaming reads"). For every key of the commit's new
 * files, the key's value before (the merged read of the bucket's live files at the base) and after
 * (the same files plus the new ones, which are newer than all of them) give {@code +I} (new key),
 * {@code -U} old + {@code +U} new (key existed), {@code -D} old (an existing key deleted), nothing
 * (an absent key deleted, or a row that lost to a greater {@code sequence.field}).
 *
 * <p>The commit loop asks for the changelog of each attempt's base: a retry on a newer base reuses
 * it unless a snapshot in between changed a bucket the commit writes, and then computes it again
 * (the superseded files are deleted). Only the live files whose key range overlaps the new files'
 * are read, through a {@link LookupCache}, which forgets the files of those buckets that are no
 * longer live.
 */
final class LookupChangelog {

  private final TableStore table;
  private final Map<BucketId, List<DataFileMeta>> newFiles;
  private final int totalBuckets;
  private final LookupCache cache;
  private final FileStoreScan scan;

  private Snapshot computedOn;
  private boolean computed;
  private ChangelogList current;
  private final List<ManifestEntry> currentFiles = new ArrayList<>();

  LookupChangelog(
      TableStore table,
      Map<BucketId, List<DataFileMeta>> newFiles,
      int totalBuckets,
      LookupCache cache) {
    this.table = table;
    this.newFiles = newFiles;
    this.totalBuckets = totalBuckets;
    this.cache = cache;
    this.scan = new FileStoreScan(table);
  }

  /** The changelog list for a snapshot built on {@code base} ({@code null}: no snapshot yet). */
  ChangelogList forBase(Snapshot base) throws IOException {
    if (computed && !changedSince(computedOn, base)) {
      computedOn = base;
      return current;
    }
    discard();
    compute(base);
    computedOn = base;
    computed = true;
    return current;
  }

  /** The list of the last attempt; {@code null} when it had no changes. */
  ChangelogList current() {
    return current;
  }

  /** Deletes the current changelog list and files (a commit that did not publish them). */
  void discard() {
    if (current != null) {
      current.deleteQuietly(table);
      current = null;
    }
    for (ManifestEntry e : currentFiles) {
      try {
        table
            .fileIO()
            .delete(table.bucketPath(e.partition(), e.bucket()).child(e.file().fileName()), false);
      } catch (IOException ignored) {
        // Unreferenced; orphan-file removal collects it.
      }
    }
    currentFiles.clear();
    computed = false;
  }

  private boolean changedSince(Snapshot from, Snapshot to) throws IOException {
    long fromId = from == null ? 0 : from.id();
    long toId = to == null ? 0 : to.id();
    if (toId == fromId) {
      return false;
    }
    for (long id = fromId + 1; id <= toId; id++) {
      Snapshot s = table.snapshotManager().get(id);
      for (ManifestEntry e : scan.delta(s)) {
        if (newFiles.containsKey(new BucketId(e.partition(), e.bucket()))) {
          return true;
        }
      }
    }
    return false;
  }

  private void compute(Snapshot base) throws IOException {
    Map<BucketId, List<DataFileMeta>> live = new LinkedHashMap<>();
    if (base != null) {
      for (ManifestEntry e : scan.liveFiles(base).values()) {
        BucketId id = new BucketId(e.partition(), e.bucket());
        if (newFiles.containsKey(id)) {
          live.computeIfAbsent(id, b -> new ArrayList<>()).add(e.file());
        }
      }
    }
    Set<String> directories = new HashSet<>();
    Set<String> liveKeys = new HashSet<>();
    for (BucketId id : newFiles.keySet()) {
      directories.add(id.directory());
      for (DataFileMeta f : live.getOrDefault(id, List.of())) {
        liveKeys.add(LookupCache.key(id, f.fileName()));
      }
    }
    cache.retainLive(directories, liveKeys);
    List<ManifestEntry> written = new ArrayList<>();
    int[] keys = table.schema().primaryKeyIndexes();
    try {
      for (Map.Entry<BucketId, List<DataFileMeta>> bucket : newFiles.entrySet()) {
        BucketId id = bucket.getKey();
        List<DataFileMeta> ours = new ArrayList<>();
        Set<String> ourNames = new HashSet<>();
        for (DataFileMeta f : bucket.getValue()) {
          // Newer than every committed row, whatever id the snapshot gets.
          ours.add(f.withCommitSnapshot(Long.MAX_VALUE));
          ourNames.add(f.fileName());
        }
        List<DataFileMeta> before = overlapping(live.getOrDefault(id, List.of()), ours);
        List<DataFileMeta> after = new ArrayList<>(before);
        after.addAll(ours);
        RollingFileWriter writer =
            new RollingFileWriter(table, id.partition(), id.bucket(), 0, "changelog-");
        long sequence = 0;
        try (DeduplicateMerger old = merger(id, before, ourNames);
            DeduplicateMerger now = merger(id, after, ourNames)) {
          KeyValue o = old.next();
          for (KeyValue n = now.next(); n != null; n = now.next()) {
            while (o != null && RowComparator.compare(o.fileRow(), n.fileRow(), keys) < 0) {
              o = old.next();
            }
            KeyValue previous =
                o != null && RowComparator.compare(o.fileRow(), n.fileRow(), keys) == 0 ? o : null;
            if (n.snapshot() != Long.MAX_VALUE) {
              continue; // not written by this commit, or lost to a greater sequence.field
            }
            boolean existed = previous != null && !previous.deleted();
            if (!n.deleted()) {
              if (existed) {
                writer.write(row(previous, RowKind.UPDATE_BEFORE, sequence), sequence++);
                writer.write(row(n, RowKind.UPDATE_AFTER, sequence), sequence++);
              } else {
                writer.write(row(n, RowKind.INSERT, sequence), sequence++);
              }
            } else if (existed) {
              writer.write(row(previous, RowKind.DELETE, sequence), sequence++);
            }
          }
        } catch (IOException | RuntimeException e) {
          writer.abort();
          throw e;
        }
        for (DataFileMeta f : writer.finish()) {
          written.add(
              new ManifestEntry(FileKind.ADD, id.partition(), id.bucket(), totalBuckets, f));
        }
      }
      currentFiles.addAll(written);
      current = ChangelogList.write(table, written);
    } catch (IOException | RuntimeException e) {
      currentFiles.addAll(written);
      discard();
      throw e;
    }
  }

  private GenericRow row(KeyValue kv, RowKind kind, long sequence) {
    return table.keyValueFileRow(kv.row(), -1, sequence, kind);
  }

  private DeduplicateMerger merger(BucketId id, List<DataFileMeta> files, Set<String> ours)
      throws IOException {
    return new DeduplicateMerger(
        table,
        id.partition(),
        id.bucket(),
        files,
        file ->
            ours.contains(file.fileName())
                ? table
                    .format()
                    .createReader(
                        table.fileIO(),
                        table.bucketPath(id.partition(), id.bucket()).child(file.fileName()),
                        table.dataFileRowType())
                : cache.open(id, file));
  }

  /** The committed files whose key range overlaps the key range of {@code ours}. */
  private List<DataFileMeta> overlapping(List<DataFileMeta> committed, List<DataFileMeta> ours) {
    GenericRow min = null;
    GenericRow max = null;
    for (DataFileMeta f : ours) {
      GenericRow fMin = table.keyCodec().decode(f.minKey());
      GenericRow fMax = table.keyCodec().decode(f.maxKey());
      min = min == null || RowComparator.INSTANCE.compare(fMin, min) < 0 ? fMin : min;
      max = max == null || RowComparator.INSTANCE.compare(fMax, max) > 0 ? fMax : max;
    }
    List<DataFileMeta> out = new ArrayList<>();
    for (DataFileMeta f : committed) {
      GenericRow fMin = table.keyCodec().decode(f.minKey());
      GenericRow fMax = table.keyCodec().decode(f.maxKey());
      if (RowComparator.INSTANCE.compare(fMax, min) >= 0
          && RowComparator.INSTANCE.compare(max, fMin) >= 0) {
        out.add(f);
      }
    }
    return out;
  }
}
