package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.index.HashIndex;
import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.maintenance.TableCheck;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dynamic bucket mode ({@code bucket = -1}): the committed key-hash index (issue 19). */
class DynamicBucketTest {

  @TempDir Path dir;

  private FileStoreTable table(Map<String, String> options) throws Exception {
    Map<String, String> all = new HashMap<>(options);
    all.put("bucket", "-1");
    return TestTables.keyValueTable(dir, all);
  }

  private static void upsert(FileStoreTable table, String user, long id, int from, int to, String v)
      throws Exception {
    try (TableWrite write = table.newWrite(user)) {
      for (int k = from; k < to; k++) {
        write.write(GenericRow.of(k, v + k));
      }
      table.newCommit(user).commit(id, write.prepareCommit());
    }
  }

  /** Key → the bucket holding it, from the splits of the latest snapshot. */
  private static Map<Integer, Integer> bucketOfKey(FileStoreTable table) throws Exception {
    Map<Integer, Integer> out = new TreeMap<>();
    for (Split split : table.newScan().plan().splits()) {
      for (GenericRow row : table.newRead().read(split)) {
        Integer before = out.put((Integer) row.get(0), split.bucket());
        assertThat(before).as("key %s in two buckets", row.get(0)).isNull();
      }
    }
    return out;
  }

  private static Map<Integer, Long> hashesPerBucket(FileStoreTable table) throws Exception {
    Snapshot s = table.snapshotManager().latest().orElseThrow();
    return table.indexManifest().read(s.indexManifest()).stream()
        .collect(
            Collectors.groupingBy(
                IndexFileMeta::bucket,
                TreeMap::new,
                Collectors.summingLong(IndexFileMeta::rowCount)));
  }

  @Test
  void opensANewBucketWhenTheOthersReachTheTargetRowCount() throws Exception {
    FileStoreTable table = table(Map.of("dynamic-bucket.target-row-num", "10"));
    upsert(table, "u", 1, 0, 35, "a");
    assertThat(hashesPerBucket(table)).isEqualTo(Map.of(0, 10L, 1, 10L, 2, 10L, 3, 5L));
    Map<Integer, Integer> buckets = bucketOfKey(table);
    assertThat(buckets).hasSize(35);
    assertThat(new HashSet<>(buckets.values())).containsExactlyInAnyOrder(0, 1, 2, 3);
    // More keys fill bucket 3 first, then open bucket 4.
    upsert(table, "u", 2, 35, 43, "a");
    assertThat(hashesPerBucket(table)).isEqualTo(Map.of(0, 10L, 1, 10L, 2, 10L, 3, 10L, 4, 3L));
    assertThat(TestTables.readKeyValues(table)).hasSize(43);
  }

  @Test
  void initialBucketsSpreadNewKeys() throws Exception {
    FileStoreTable table =
        table(
            Map.of("dynamic-bucket.target-row-num", "1000", "dynamic-bucket.initial-buckets", "4"));
    upsert(table, "u", 1, 0, 400, "a");
    Map<Integer, Long> counts = hashesPerBucket(table);
    assertThat(counts.keySet()).containsExactly(0, 1, 2, 3);
    assertThat(counts.values()).allMatch(c -> c > 50);
  }

  @Test
  void atMaxBucketsNewKeysGoToTheLeastFilledBucketAndWritesAreNeverRefused() throws Exception {
    FileStoreTable table =
        table(Map.of("dynamic-bucket.target-row-num", "10", "dynamic-bucket.max-buckets", "2"));
    upsert(table, "u", 1, 0, 15, "a");
    assertThat(hashesPerBucket(table)).isEqualTo(Map.of(0, 10L, 1, 5L));
    upsert(table, "u", 2, 15, 60, "b");
    Map<Integer, Long> counts = hashesPerBucket(table);
    assertThat(counts.keySet()).containsExactly(0, 1);
    assertThat(counts.get(0) + counts.get(1)).isEqualTo(60);
    // Least-filled: bucket 1 catches up with bucket 0, then they alternate.
    assertThat(Math.abs(counts.get(0) - counts.get(1))).isLessThanOrEqualTo(1);
    Map<Integer, String> content = TestTables.readKeyValues(table);
    assertThat(content).hasSize(60);
    assertThat(content.get(59)).isEqualTo("b59");
  }

  @Test
  void theIndexPersistsAcrossReopenAndKeysKeepTheirBuckets() throws Exception {
    FileStoreTable table = table(Map.of("dynamic-bucket.target-row-num", "10"));
    upsert(table, "u", 1, 0, 30, "a");
    Map<Integer, Integer> before = bucketOfKey(table);
    FileStoreTable reopened = TestTables.catalog(dir).getTable(new Identifier("db", "kv"));
    assertThat(reopened.options().dynamicBucket()).isTrue();
    // Updates of every old key and 20 new keys, from another writer.
    upsert(reopened, "other", 1, 0, 50, "b");
    Map<Integer, Integer> after = bucketOfKey(reopened);
    for (int k = 0; k < 30; k++) {
      assertThat(after.get(k)).as("bucket of key %s", k).isEqualTo(before.get(k));
    }
    Map<Integer, String> content = TestTables.readKeyValues(reopened);
    assertThat(content).hasSize(50);
    assertThat(content.values()).allMatch(v -> v.startsWith("b"));
    assertThat(hashesPerBucket(reopened).values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(50);
  }

  @Test
  void twoWritersOnOneBaseWithCollidingNewKeysAreReRoutedInProcess() throws Exception {
    FileStoreTable table = table(Map.of("dynamic-bucket.target-row-num", "5"));
    TableWrite a = table.newWrite("a");
    TableWrite b = table.newWrite("b");
    for (int k = 0; k < 10; k++) {
      a.write(GenericRow.of(k, "a" + k));
    }
    // b, on the same (empty) base, puts keys 5..9 into bucket 0; a puts them into bucket 1.
    for (int k = 5; k < 10; k++) {
      b.write(GenericRow.of(k, "b" + k));
    }
    List<CommitMessage> fromA = a.prepareCommit();
    List<CommitMessage> fromB = b.prepareCommit();
    assertThat(fromB.get(0).indexHashes()).hasSize(5);
    // A message given another base (as the Flink and Spark committers do) keeps its assignments.
    assertThat(fromB.get(0).withBaseSnapshotId(0).indexHashes())
        .containsExactlyInAnyOrder(fromB.get(0).indexHashes());
    table.newCommit("a").commit(1, fromA);
    TableCommit commitB = table.newCommit("b");
    commitB.commit(1, fromB);
    assertThat(commitB.indexConflicts()).isEqualTo(1);
    Map<Integer, String> content = TestTables.readKeyValues(table);
    assertThat(content).hasSize(10);
    for (int k = 0; k < 10; k++) {
      assertThat(content.get(k)).isEqualTo((k < 5 ? "a" : "b") + k);
    }
    Map<Integer, Integer> buckets = bucketOfKey(table);
    for (int k = 5; k < 10; k++) {
      assertThat(buckets.get(k)).isEqualTo(1);
    }
    assertThat(hashesPerBucket(table)).isEqualTo(Map.of(0, 5L, 1, 5L));
    a.close();
    b.close();
    // b's rewritten original file is gone; nothing unreferenced is left in the bucket folders.
    assertThat(
            new OrphanFilesCleaner(table, Duration.ZERO, true)
                .clean().removed().stream().filter(f -> f.path().contains("bucket-")).toList())
        .isEmpty();
  }

  @Test
  void expirationAndOrphanRemovalKeepLiveIndexFilesAndRemoveExpiredOnes() throws Exception {
    FileStoreTable table = table(Map.of("dynamic-bucket.target-row-num", "1000"));
    // 40 commits of 3 new keys each: bucket 0 gets 40 index files, merged once more than 16.
    for (int c = 0; c < 40; c++) {
      upsert(table, "u", c + 1, c * 3, c * 3 + 3, "v");
    }
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    List<IndexFileMeta> live = table.indexManifest().read(latest.indexManifest());
    assertThat(live.size()).isLessThanOrEqualTo(17);
    assertThat(live.stream().mapToLong(IndexFileMeta::rowCount).sum()).isEqualTo(120);
    Set<String> before = indexFiles();
    assertThat(before.size()).isGreaterThan(live.size() + 1);
    new SnapshotExpiration(table, new MaintenanceOptions(1, 1, Duration.ZERO, 1000)).expire();
    Set<String> after = indexFiles();
    Set<String> expected = new HashSet<>();
    expected.add(latest.indexManifest());
    live.forEach(f -> expected.add(f.fileName()));
    assertThat(after).isEqualTo(expected);
    // An index file no snapshot names is an orphan; the live ones stay.
    Path stray = dir.resolve("db.db/kv/manifest/index-stray.hash");
    try (OutputStream out = Files.newOutputStream(stray)) {
      out.write(new byte[] {0, 0, 0, 0});
    }
    // Older than the run: a file modified in the cleaner's own millisecond counts as too young.
    Files.setLastModifiedTime(
        stray, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    var report = new OrphanFilesCleaner(table, Duration.ZERO, false).clean();
    assertThat(report.removed()).extracting(f -> f.path()).contains("manifest/index-stray.hash");
    assertThat(indexFiles()).isEqualTo(expected);
    assertThat(TestTables.readKeyValues(table)).hasSize(120);
    // A new writer loads the merged index: the 120 keys keep their bucket.
    upsert(table, "w", 1, 0, 120, "x");
    assertThat(hashesPerBucket(table)).isEqualTo(Map.of(0, 120L));
  }

  private Set<String> indexFiles() throws Exception {
    try (Stream<Path> files = Files.list(dir.resolve("db.db/kv/manifest"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("index-"))
          .collect(Collectors.toSet());
    }
  }

  @Test
  void tableCheckVerifiesIndexFiles() throws Exception {
    FileStoreTable table = table(Map.of("dynamic-bucket.target-row-num", "10"));
    upsert(table, "u", 1, 0, 25, "a");
    assertThat(new TableCheck(table, true).run().problems()).isEmpty();
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    IndexFileMeta victim = table.indexManifest().read(latest.indexManifest()).get(1);
    Files.delete(dir.resolve("db.db/kv/manifest/" + victim.fileName()));
    List<TableCheck.Problem> problems = new TableCheck(table, false).run().problems();
    assertThat(problems).hasSize(1);
    assertThat(problems.get(0).kind()).isEqualTo("index file");
    assertThat(problems.get(0).damage()).isEqualTo("missing");
    assertThat(problems.get(0).file()).endsWith(victim.fileName());
  }

  @Test
  void theIndexCostsAtMostEightBytesPerKey() {
    HashIndex index = new HashIndex();
    java.util.Random random = new java.util.Random(7);
    int keys = 1_000_000;
    for (int i = 0; i < keys; i++) {
      index.putIfAbsent(random.nextInt(), i % 100);
    }
    index.merge();
    assertThat((double) index.bytes() / index.size()).isLessThanOrEqualTo(6.01);
    assertThat(index.size()).isGreaterThan(keys - 1000);
  }

  @Test
  void appendTablesRefuseDynamicBucketsAndBadOptionsAreNamed() {
    assertThatThrownBy(
            () ->
                TestTables.catalog(dir)
                    .createTable(
                        new Identifier("db", "log"),
                        Schema.newBuilder()
                            .column("n", DataType.bigint())
                            .options(Map.of("bucket", "-1"))
                            .build()))
        .hasMessageContaining("primary-key tables only");
    assertThatThrownBy(() -> table(Map.of("dynamic-bucket.target-row-num", "0")))
        .hasMessageContaining("dynamic-bucket.target-row-num");
    assertThatThrownBy(
            () ->
                table(
                    Map.of(
                        "dynamic-bucket.initial-buckets", "4", "dynamic-bucket.max-buckets", "2")))
        .hasMessageContaining("dynamic-bucket.max-buckets");
    assertThatThrownBy(() -> TestTables.keyValueTable(dir, Map.of("bucket", "-2")))
        .hasMessageContaining("bucket");
  }
}
