package dev.lockstep.engine.deletionvectors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.index.DeletionVectorFile;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.scan.DeduplicateMerger;
import dev.lockstep.engine.scan.KeyValue;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;

/** Tables and reads for the deletion-vector tests: (k INT key, v STRING, ts BIGINT). */
final class DeletionVectorTables {

  private DeletionVectorTables() {}

  static FileStoreTable create(Path dir, String name, Map<String, String> options)
      throws IOException {
    return TestTables.catalog(dir)
        .createTable(
            new Identifier("db", name),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .column("ts", DataType.bigint())
                .primaryKey("k")
                .options(options)
                .build());
  }

  /** What the table read returns at {@code snapshot} (latest when null), by key; no key twice. */
  static Map<Integer, GenericRow> read(FileStoreTable table, Long snapshot) throws IOException {
    TableScan scan = table.newScan();
    if (snapshot != null) {
      scan.withSnapshot(snapshot);
    }
    Map<Integer, GenericRow> out = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(scan.plan())) {
      GenericRow before = out.put((Integer) row.get(0), row);
      assertThat(before).as("key %s read twice (%s and %s)", row.get(0), before, row).isNull();
    }
    return out;
  }

  /** The merge read of the same files (no deletion vectors), by key. */
  static Map<Integer, GenericRow> mergeRead(FileStoreTable table, Long snapshot)
      throws IOException {
    TableScan scan = table.newScan();
    if (snapshot != null) {
      scan.withSnapshot(snapshot);
    }
    Map<Integer, GenericRow> out = new TreeMap<>();
    for (Split split : scan.plan().splits()) {
      try (DeduplicateMerger merger =
          new DeduplicateMerger(table, split.partition(), split.bucket(), split.files())) {
        for (KeyValue kv = merger.next(); kv != null; kv = merger.next()) {
          if (!kv.deleted()) {
            out.put((Integer) kv.row().get(0), kv.row());
          }
        }
      }
    }
    return out;
  }

  /**
   * Asserts that every split of {@code snapshot} is read with deletion vectors: its bucket has a
   * vector file listing exactly its files. Returns the number of rows the vectors delete.
   */
  static long assertCovered(FileStoreTable table, Snapshot snapshot) throws IOException {
    Map<BucketId, IndexFileMeta> files = DeletionVectorFile.byBucket(table, snapshot);
    long deleted = 0;
    for (Split split : table.newScan().withSnapshot(snapshot.id()).plan().splits()) {
      IndexFileMeta file = files.get(new BucketId(split.partition(), split.bucket()));
      assertThat(file)
          .as(
              "bucket %s/%d of snapshot %d has vectors",
              split.partition(), split.bucket(), snapshot.id())
          .isNotNull();
      Map<String, RoaringBitmap> vectors = DeletionVectorFile.read(table, file.fileName());
      assertThat(vectors.keySet())
          .as("the vector file lists exactly the bucket's files")
          .containsExactlyInAnyOrderElementsOf(
              split.files().stream().map(DataFileMeta::fileName).toList());
      for (RoaringBitmap b : vectors.values()) {
        deleted += b.getLongCardinality();
      }
    }
    return deleted;
  }

  static List<Long> snapshotIds(FileStoreTable table) throws IOException {
    long latest = table.snapshotManager().latestId().orElse(0);
    return java.util.stream.LongStream.rangeClosed(1, latest).boxed().toList();
  }
}
