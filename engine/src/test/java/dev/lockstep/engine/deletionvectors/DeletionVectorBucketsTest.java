package dev.lockstep.engine.deletionvectors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.index.DeletionVectorFile;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deletion vectors of a commit replace only the vector files of the buckets it touches
 * (commit.DeletionVectorMaintainer.indexManifest): the other buckets keep theirs, and the key-hash
 * index files of a dynamic-bucket table are kept whether the committing table object has the option
 * on or off. Losing a bucket's hash index would route an update of one of its keys to another
 * bucket: the key would then be read twice. Real local tables.
 */
class DeletionVectorBucketsTest {

  @TempDir Path dir;

  private static void upsert(FileStoreTable table, String user, long identifier, int... keys)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      for (int k : keys) {
        write.write(GenericRow.of(k, user + identifier, 0L));
      }
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  private static Map<Integer, String> values(FileStoreTable table) throws IOException {
    Map<Integer, String> out = new TreeMap<>();
    DeletionVectorTables.read(table, null).forEach((k, row) -> out.put(k, (String) row.get(1)));
    return out;
  }

  @Test
  void aCommitToOneBucketKeepsTheVectorsOfTheOthers() throws Exception {
    FileStoreTable table =
        DeletionVectorTables.create(
            dir, "two", Map.of("deletion-vectors.enabled", "true", "bucket", "2"));
    int[] all = new int[20];
    for (int k = 0; k < all.length; k++) {
      all[k] = k;
    }
    upsert(table, "a", 1, all);
    upsert(table, "a", 2, all); // both buckets now have vectors marking the first rows
    Snapshot both = table.snapshotManager().latest().orElseThrow();
    Map<BucketId, IndexFileMeta> before = DeletionVectorFile.byBucket(table, both);
    assertThat(before).hasSize(2);

    upsert(table, "b", 1, 0); // one key: one bucket
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    Map<BucketId, IndexFileMeta> after = DeletionVectorFile.byBucket(table, latest);
    assertThat(after).hasSize(2);
    long changed =
        before.keySet().stream()
            .filter(b -> !before.get(b).fileName().equals(after.get(b).fileName()))
            .count();
    assertThat(changed).as("buckets whose vector file the one-key commit replaced").isEqualTo(1);
    assertThat(DeletionVectorTables.assertCovered(table, latest))
        .as("rows the vectors delete: 20 first rows and key 0's second")
        .isEqualTo(21);
    Map<Integer, String> expected = new TreeMap<>();
    for (int k = 0; k < all.length; k++) {
      expected.put(k, "a2");
    }
    expected.put(0, "b1");
    assertThat(values(table)).isEqualTo(expected);
  }

  /**
   * One commit holding two files of one bucket with the same keys (the writer flushed in between):
   * both files carry the commit's snapshot, so the row written later (the higher sequence number)
   * wins and the vectors delete the earlier one; a delete written last deletes the key.
   */
  @Test
  void withinOneCommitTheRowWrittenLaterWins() throws Exception {
    FileStoreTable table =
        DeletionVectorTables.create(dir, "flushes", Map.of("deletion-vectors.enabled", "true"));
    upsert(table, "a", 1, 1, 2, 3);
    try (TableWrite write = table.newWrite("b")) {
      write.write(GenericRow.of(1, "first", 0L));
      write.write(GenericRow.of(2, "first", 0L));
      write.flush();
      write.write(GenericRow.of(1, "second", 0L));
      write.write(dev.lockstep.engine.data.RowKind.DELETE, GenericRow.of(2, null, 0L));
      table.newCommit("b").commit(1, write.prepareCommit());
    }
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    assertThat(table.newScan().plan().splits().get(0).files())
        .as("a's file and b's two flushes")
        .hasSize(3);
    assertThat(values(table)).isEqualTo(Map.of(1, "second", 3, "a1"));
    assertThat(values(table)).isEqualTo(toValues(DeletionVectorTables.mergeRead(table, null)));
    assertThat(DeletionVectorTables.assertCovered(table, latest))
        .as("rows the vectors delete: a's 1 and 2, b's first 1 and 2, b's delete of 2")
        .isEqualTo(5);
  }

  private static Map<Integer, String> toValues(Map<Integer, GenericRow> rows) {
    Map<Integer, String> out = new TreeMap<>();
    rows.forEach((k, row) -> out.put(k, (String) row.get(1)));
    return out;
  }

  /**
   * Dynamic buckets, 4 keys a bucket, one initial bucket: keys 0-3 go to bucket 0, 4-7 to bucket 1.
   * An update of key 4 (bucket 1) commits vectors for bucket 1 (or drops them, option off); then a
   * batch of four new keys and an update of key 5 must find bucket 1 full and key 5 in it.
   */
  private void keyHashesSurviveAVectorCommit(boolean optionOnForTheUpdate) throws Exception {
    Map<String, String> options = new HashMap<>();
    options.put("deletion-vectors.enabled", "true");
    options.put("bucket", "-1");
    options.put("dynamic-bucket.target-row-num", "4");
    options.put("dynamic-bucket.initial-buckets", "1");
    FileStoreTable table = DeletionVectorTables.create(dir, "dyn", options);
    upsert(table, "a", 1, 0, 1, 2, 3, 4, 5, 6, 7);
    FileStoreTable updater =
        optionOnForTheUpdate
            ? table
            : table.copyWithOptions(Map.of("deletion-vectors.enabled", "false"));
    upsert(updater, "b", 1, 4);
    Snapshot updated = table.snapshotManager().latest().orElseThrow();
    long hashFiles =
        table.indexManifest().read(updated.indexManifest()).stream()
            .filter(f -> IndexFileMeta.HASH.equals(f.indexType()))
            .map(f -> f.bucket())
            .distinct()
            .count();
    assertThat(hashFiles).as("buckets with key-hash index files").isEqualTo(2);

    upsert(table, "c", 1, 100, 101, 102, 103, 5);
    Map<Integer, String> expected = new TreeMap<>();
    for (int k = 0; k < 8; k++) {
      expected.put(k, "a1");
    }
    expected.put(4, "b1");
    for (int k : new int[] {100, 101, 102, 103, 5}) {
      expected.put(k, "c1");
    }
    // DeletionVectorTables.read fails on a key read twice.
    assertThat(values(table)).isEqualTo(expected);
    assertThat(DeletionVectorTables.mergeRead(table, null)).hasSize(expected.size());

    // Each commit assigned key hashes (an index manifest naming them) and then replaced that
    // manifest by one naming its vectors too: the replaced one is deleted, none is left behind.
    Set<String> named = new HashSet<>();
    for (long id : DeletionVectorTables.snapshotIds(table)) {
      named.add(table.snapshotManager().get(id).indexManifest());
    }
    try (Stream<Path> files = Files.list(dir.resolve("db.db/dyn/manifest"))) {
      assertThat(
              files
                  .map(f -> f.getFileName().toString())
                  .filter(n -> n.startsWith("index-manifest-")))
          .containsExactlyInAnyOrderElementsOf(named);
    }
  }

  @Test
  void aDynamicBucketTableKeepsItsKeyHashesWhenACommitReplacesVectors() throws Exception {
    keyHashesSurviveAVectorCommit(true);
  }

  @Test
  void aDynamicBucketTableKeepsItsKeyHashesWhenACommitWithTheOptionOffDropsVectors()
      throws Exception {
    keyHashesSurviveAVectorCommit(false);
  }
}
