package dev.lockstep.engine.commit;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.format.ReadOptions;
import dev.lockstep.engine.index.DeletionVectorFile;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.scan.LiveFileCache;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.DeletionVectorOptions;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import org.roaringbitmap.RoaringBitmap;

/**
 * The deletion vectors of one commit of a primary-key table (docs/engine.md, "Deletion vectors").
 *
 * <p><b>The invariant.</b> When a snapshot's index manifest names a deletion-vector file for a
 * bucket, that file lists exactly the bucket's live data files, and the rows its vectors leave are
 * exactly the merge winners of their keys that are not retractions ({@code -U}/{@code -D}): the
 * vectors are a function of the bucket's live files, so a reader may read every file on its own.
 *
 * <p><b>Kept per attempt, against its exact base.</b> For every bucket the commit adds or deletes
 * files in, the vectors of the snapshot built on {@code base} are: when the commit only adds files
 * and the base's file covers the base's live files, the base's vectors plus, for each key of the
 * added files, every row of it that is not the winner (and the winner when it is a retraction),
 * found by merging the added files with the live files whose key range overlaps theirs; otherwise
 * (compactions, overwrites, rollbacks, a bucket without vectors yet) the same over every live file
 * of the bucket after the commit. A retry on a newer base recomputes a bucket only when the base's
 * live files or vectors of that bucket changed; so two commits that add vectors to one data file
 * end with the union (the later one starts from the vectors the earlier one published), and a
 * commit whose base file was compacted away meanwhile computes its vectors on the compaction's
 * output. In a table without the option, a commit drops the vectors of the buckets it changes (so
 * no stale vector outlives a switch of the option).
 */
final class DeletionVectorMaintainer {

  private final TableStore table;
  private final boolean enabled;
  private final Map<BucketId, List<DataFileMeta>> adds = new LinkedHashMap<>();
  private final Map<BucketId, Set<String>> deletes = new LinkedHashMap<>();
  private final Set<String> partitions = new TreeSet<>();
  private final Map<BucketId, Computed> computed = new HashMap<>();

  /** The vectors of one bucket and the base state they were computed on. */
  private record Computed(String baseFile, Set<String> baseFiles, Map<String, RoaringBitmap> v) {}

  DeletionVectorMaintainer(TableStore table, List<ManifestEntry> changes) {
    this.table = table;
    this.enabled = DeletionVectorOptions.enabled(table);
    for (ManifestEntry e : changes) {
      BucketId id = new BucketId(e.partition(), e.bucket());
      partitions.add(e.partition());
      if (e.kind() == FileKind.ADD) {
        adds.computeIfAbsent(id, k -> new ArrayList<>()).add(e.file());
        deletes.computeIfAbsent(id, k -> new HashSet<>());
      } else {
        deletes.computeIfAbsent(id, k -> new HashSet<>()).add(e.file().fileName());
        adds.computeIfAbsent(id, k -> new ArrayList<>());
      }
    }
  }

  /**
   * The index manifest of snapshot {@code id} built on {@code base}, given {@code current} (the
   * index manifest this attempt has so far: the base's, or one it wrote for key hashes): the same
   * when no vector changes, else a new one with the touched buckets' vector files replaced. Files
   * written go to {@code written} (with the {@code i:} prefix, deleted if the attempt fails).
   */
  String indexManifest(
      Snapshot base, String current, long id, List<String> written, LiveFileCache live)
      throws IOException {
    if (adds.isEmpty()) {
      return current;
    }
    List<IndexFileMeta> entries = new ArrayList<>(table.indexManifest().read(current));
    Map<BucketId, IndexFileMeta> baseVectors = DeletionVectorFile.byBucket(entries);
    if (!enabled) {
      boolean dropped =
          entries.removeIf(
              e ->
                  IndexFileMeta.DELETION_VECTORS.equals(e.indexType())
                      && adds.containsKey(new BucketId(e.partition(), e.bucket())));
      return dropped ? replace(base, current, entries, written) : current;
    }
    Map<BucketId, List<DataFileMeta>> baseFiles = new HashMap<>();
    for (ManifestEntry e : live.liveFiles(base, partitions)) {
      BucketId bucket = new BucketId(e.partition(), e.bucket());
      if (adds.containsKey(bucket)) {
        baseFiles.computeIfAbsent(bucket, k -> new ArrayList<>()).add(e.file());
      }
    }
    entries.removeIf(
        e ->
            IndexFileMeta.DELETION_VECTORS.equals(e.indexType())
                && adds.containsKey(new BucketId(e.partition(), e.bucket())));
    for (BucketId bucket : adds.keySet()) {
      List<DataFileMeta> before = baseFiles.getOrDefault(bucket, List.of());
      IndexFileMeta baseFile = baseVectors.get(bucket);
      Set<String> beforeNames = new HashSet<>();
      before.forEach(f -> beforeNames.add(f.fileName()));
      String baseName = baseFile == null ? null : baseFile.fileName();
      Computed c = computed.get(bucket);
      if (c == null
          || !Objects.equals(c.baseFile(), baseName)
          || !c.baseFiles().equals(beforeNames)) {
        c = new Computed(baseName, beforeNames, compute(bucket, before, baseFile, id));
        computed.put(bucket, c);
      }
      if (c.v().isEmpty()) {
        continue; // an emptied bucket
      }
      IndexFileMeta file =
          DeletionVectorFile.write(table, bucket.partition(), bucket.bucket(), c.v());
      written.add("i:" + file.fileName());
      entries.add(file);
    }
    return replace(base, current, entries, written);
  }

  private String replace(
      Snapshot base, String current, List<IndexFileMeta> entries, List<String> written)
      throws IOException {
    if (current != null && (base == null || !current.equals(base.indexManifest()))) {
      // Written by this attempt for key hashes: superseded by the one written now.
      written.remove("i:" + current);
      table.indexManifest().deleteQuietly(current);
    }
    String name = table.indexManifest().write(entries);
    written.add("i:" + name);
    return name;
  }

  /** The vectors of {@code bucket} after this commit, on base files {@code before}. */
  private Map<String, RoaringBitmap> compute(
      BucketId bucket, List<DataFileMeta> before, IndexFileMeta baseFile, long id)
      throws IOException {
    Set<String> gone = deletes.get(bucket);
    List<DataFileMeta> added = new ArrayList<>();
    for (DataFileMeta f : adds.get(bucket)) {
      added.add(f.commitSnapshot() < 0 ? f.withCommitSnapshot(id) : f);
    }
    Map<String, RoaringBitmap> base =
        baseFile == null ? null : DeletionVectorFile.read(table, baseFile.fileName());
    Set<String> beforeNames = new HashSet<>();
    before.forEach(f -> beforeNames.add(f.fileName()));
    boolean incremental = gone.isEmpty() && base != null && base.keySet().equals(beforeNames);
    Map<String, RoaringBitmap> vectors = new HashMap<>();
    List<DataFileMeta> merge = new ArrayList<>(added);
    if (incremental) {
      base.forEach((file, bitmap) -> vectors.put(file, bitmap.clone()));
      merge.addAll(overlapping(before, added));
    } else {
      for (DataFileMeta f : before) {
        if (!gone.contains(f.fileName())) {
          merge.add(f);
        }
      }
    }
    for (DataFileMeta f : merge) {
      vectors.computeIfAbsent(f.fileName(), k -> new RoaringBitmap());
    }
    Set<String> addedNames = new HashSet<>();
    added.forEach(f -> addedNames.add(f.fileName()));
    mark(bucket, merge, incremental ? addedNames : null, vectors);
    return vectors;
  }

  /** One file's rows in a merge, with their positions. */
  private static final class Cursor {
    final DataFileMeta file;
    final FormatReader reader;
    final boolean added;
    long position = -1;
    GenericRow row;
    long snapshot;
    long sequence;
    boolean retract;

    Cursor(DataFileMeta file, FormatReader reader, boolean added) {
      this.file = file;
      this.reader = reader;
      this.added = added;
    }
  }

  /**
   * Merges {@code files} by key and marks, for each key (each key with a row in {@code only} when
   * given), every row that is not the winner, and the winner when it is a retraction.
   */
  private void mark(
      BucketId bucket,
      List<DataFileMeta> files,
      Set<String> only,
      Map<String, RoaringBitmap> vectors)
      throws IOException {
    int[] keys = table.schema().primaryKeyIndexes();
    int[] sequenceFields = table.sequenceFieldIndexes();
    int fieldCount = table.schema().fields().size();
    boolean[] columns = new boolean[table.dataFileRowType().size()];
    for (int k : keys) {
      columns[k] = true;
    }
    for (int k : sequenceFields) {
      columns[k] = true;
    }
    for (int i = fieldCount; i < columns.length; i++) {
      columns[i] = true;
    }
    ReadOptions options = new ReadOptions(columns, null, null);
    PriorityQueue<Cursor> heads =
        new PriorityQueue<>(
            Math.max(1, files.size()), (a, b) -> RowComparator.compare(a.row, b.row, keys));
    List<Cursor> cursors = new ArrayList<>();
    try {
      for (DataFileMeta f : files) {
        if (f.commitSnapshot() < 0) {
          throw new IllegalStateException("File " + f.fileName() + " has no commit snapshot");
        }
        Cursor c =
            new Cursor(
                f,
                table
                    .format()
                    .createReader(
                        table.fileIO(),
                        table.bucketPath(bucket.partition(), bucket.bucket()).child(f.fileName()),
                        table.dataFileRowType(),
                        options),
                only != null && only.contains(f.fileName()));
        cursors.add(c);
        if (advance(c, fieldCount)) {
          heads.add(c);
        }
      }
      List<Cursor> same = new ArrayList<>();
      while (!heads.isEmpty()) {
        same.clear();
        Cursor first = heads.poll();
        same.add(first);
        while (!heads.isEmpty() && RowComparator.compare(heads.peek().row, first.row, keys) == 0) {
          same.add(heads.poll());
        }
        boolean touched = only == null;
        Cursor winner = null;
        for (Cursor c : same) {
          touched |= c.added;
          if (winner == null || wins(c, winner, sequenceFields)) {
            winner = c;
          }
        }
        if (touched) {
          for (Cursor c : same) {
            if (c != winner || c.retract) {
              vectors.get(c.file.fileName()).add(Math.toIntExact(c.position));
            }
          }
        }
        for (Cursor c : same) {
          if (advance(c, fieldCount)) {
            heads.add(c);
          }
        }
      }
    } finally {
      IOException failure = null;
      for (Cursor c : cursors) {
        try {
          c.reader.close();
        } catch (IOException e) {
          failure = e;
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  private boolean advance(Cursor c, int fieldCount) throws IOException {
    GenericRow r = c.reader.next();
    c.row = r;
    if (r == null) {
      return false;
    }
    c.position++;
    long snapshot = (Long) r.get(fieldCount);
    c.snapshot = snapshot < 0 ? c.file.commitSnapshot() : snapshot;
    c.sequence = (Long) r.get(fieldCount + 1);
    c.retract = table.rowKindOf(r).isRetract();
    return true;
  }

  /**
   * The merge order of {@code scan.DeduplicateMerger}: sequence.field, commit snapshot, sequence.
   */
  private static boolean wins(Cursor a, Cursor b, int[] sequenceFields) {
    if (sequenceFields.length > 0) {
      int c = RowComparator.compare(a.row, b.row, sequenceFields);
      if (c != 0) {
        return c > 0;
      }
    }
    return a.snapshot != b.snapshot ? a.snapshot > b.snapshot : a.sequence > b.sequence;
  }

  /**
   * The files of {@code committed} whose key range overlaps the range of a file of {@code ours}.
   */
  private List<DataFileMeta> overlapping(List<DataFileMeta> committed, List<DataFileMeta> ours) {
    List<GenericRow[]> ranges = new ArrayList<>();
    for (DataFileMeta f : ours) {
      ranges.add(
          new GenericRow[] {
            table.keyCodec().decode(f.minKey()), table.keyCodec().decode(f.maxKey())
          });
    }
    List<DataFileMeta> out = new ArrayList<>();
    for (DataFileMeta f : committed) {
      GenericRow min = table.keyCodec().decode(f.minKey());
      GenericRow max = table.keyCodec().decode(f.maxKey());
      for (GenericRow[] r : ranges) {
        if (RowComparator.INSTANCE.compare(max, r[0]) >= 0
            && RowComparator.INSTANCE.compare(r[1], min) >= 0) {
          out.add(f);
          break;
        }
      }
    }
    return out;
  }
}
