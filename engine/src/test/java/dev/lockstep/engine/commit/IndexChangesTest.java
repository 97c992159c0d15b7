package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.index.IntIntMap;
import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dynamic-bucket index check of one commit ({@link IndexChanges}), on real writers and commits:
 * which committed index files it checks, what it reports and what it leaves behind. Found unchecked
 * by mutation testing (scripts/mutation).
 */
class IndexChangesTest {

  @TempDir Path dir;

  private FileStoreTable table(int targetRows) throws Exception {
    Map<String, String> options = new HashMap<>();
    options.put("bucket", "-1");
    options.put("dynamic-bucket.target-row-num", Integer.toString(targetRows));
    return TestTables.keyValueTable(dir, options);
  }

  /** The messages of a writer of {@code user} that wrote {@code keys}, in that order. */
  private static List<CommitMessage> written(FileStoreTable table, String user, int... keys)
      throws Exception {
    try (TableWrite write = table.newWrite(user)) {
      for (int k : keys) {
        write.write(GenericRow.of(k, user + k));
      }
      return write.prepareCommit();
    }
  }

  private Set<String> indexFiles() throws Exception {
    Path manifests = dir.resolve("db.db/kv/manifest");
    if (!Files.isDirectory(manifests)) {
      return Set.of();
    }
    try (Stream<Path> files = Files.list(manifests)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("index-") && n.endsWith(".hash"))
          .collect(Collectors.toSet());
    }
  }

  @Test
  void aHashCommittedTwiceToTheWinningBucketIsOneConflict() throws Exception {
    // Target 1 row per bucket: a writer puts its first new key into bucket 0, its second into 1.
    FileStoreTable table = table(1);
    // "c" starts on the empty base: key 1 into bucket 0, key 7 into bucket 1.
    List<CommitMessage> ours = written(table, "c", 1, 7);
    // "a" and "b", on the same empty base too, each put key 7 into bucket 0; both land (no
    // conflict between them: the same bucket), so bucket 0 holds two index files naming 7.
    List<CommitMessage> a = written(table, "a", 7);
    List<CommitMessage> b = written(table, "b", 7);
    table.newCommit("a").commit(1, a);
    table.newCommit("b").commit(1, b);
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    assertThat(
            table.indexManifest().read(latest.indexManifest()).stream()
                .filter(f -> f.bucket() == 0)
                .count())
        .isEqualTo(2);

    IndexChanges changes = IndexChanges.write(table, ours).orElseThrow();
    assertThatThrownBy(() -> changes.check(latest))
        .isInstanceOfSatisfying(
            IndexConflictException.class,
            e -> {
              assertThat(e.getMessage())
                  .startsWith("1 key hashes of this commit were assigned to other buckets")
                  .contains("by snapshot " + latest.id());
              IntIntMap winners = e.winners().get("");
              assertThat(winners.size()).isEqualTo(1);
            });
    // Every index file of that snapshot is checked now: checking it again finds nothing new.
    changes.check(latest);
    changes.deleteFiles();
  }

  @Test
  void ourHashInBucketZeroAssignedElsewhereIsOneConflict() throws Exception {
    FileStoreTable table = table(1);
    // "c" on the empty base puts key 7 into bucket 0; "a" on the same base puts 1 into bucket 0 and
    // 7 into bucket 1, and commits first.
    List<CommitMessage> ours = written(table, "c", 7);
    table.newCommit("a").commit(1, written(table, "a", 1, 7));
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    IndexChanges changes = IndexChanges.write(table, ours).orElseThrow();
    assertThatThrownBy(() -> changes.check(latest))
        .isInstanceOfSatisfying(
            IndexConflictException.class,
            e -> {
              assertThat(e.getMessage())
                  .startsWith("1 key hashes of this commit were assigned to other buckets");
              IntIntMap winners = e.winners().get("");
              assertThat(winners.size()).isEqualTo(1);
              int[] bucket = {-1};
              winners.forEach((h, b) -> bucket[0] = b);
              assertThat(bucket[0]).isEqualTo(1);
            });
    changes.deleteFiles();
  }

  @Test
  void anAbandonedCommitsIndexFilesAreDeleted() throws Exception {
    FileStoreTable table = table(2);
    Set<String> before = indexFiles();
    IndexChanges changes = IndexChanges.write(table, written(table, "u", 1, 2, 3, 4, 5)).get();
    // Three buckets of new keys: three index files of this commit, one per bucket.
    assertThat(changes.files())
        .extracting(IndexFileMeta::bucket)
        .containsExactlyInAnyOrder(0, 1, 2);
    assertThat(indexFiles()).hasSize(before.size() + 3);
    changes.deleteFiles();
    assertThat(indexFiles()).isEqualTo(before);
  }

  @Test
  void messagesThatAssignNoHashNeedNoIndexChanges() throws Exception {
    FileStoreTable table = table(10);
    table.newCommit("u").commit(1, written(table, "u", 1, 2));
    // Updates of committed keys assign nothing new.
    assertThat(IndexChanges.write(table, written(table, "u", 1, 2))).isEmpty();
  }

  @Test
  void aBaseThatExpiredBeforeTheCommitIsCheckedInFull() throws Exception {
    FileStoreTable table = table(1);
    table.newCommit("a").commit(1, written(table, "a", 1));
    // "c" writes on base 1 (key 1 is known in bucket 0): key 9 is new and goes to bucket 1.
    List<CommitMessage> ours = written(table, "c", 9);
    assertThat(ours.get(0).baseSnapshotId()).isEqualTo(1);
    // Meanwhile "b" (on the same base) puts key 9 into bucket 1 too, and "d" another key; the base
    // snapshot 1 expires.
    table.newCommit("b").commit(1, written(table, "b", 9));
    table.newCommit("d").commit(1, written(table, "d", 20));
    new SnapshotExpiration(table, new MaintenanceOptions(1, 1, Duration.ZERO, 1000)).expire();
    assertThat(dir.resolve("db.db/kv/snapshot/snapshot-1")).doesNotExist();

    // The committing process opens the table afresh (it never saw snapshot 1).
    FileStoreTable committer = TestTables.catalog(dir).getTable(new Identifier("db", "kv"));
    IndexChanges changes = IndexChanges.write(committer, ours).orElseThrow();
    Snapshot latest = committer.snapshotManager().latest().orElseThrow();
    // Same bucket as the winner: no conflict, however many files were checked.
    changes.check(latest);
    changes.deleteFiles();
  }

  @Test
  void theCommitLandsAndKeysStayInOneBucketWhenTheBaseExpired() throws Exception {
    FileStoreTable table = table(1);
    table.newCommit("a").commit(1, written(table, "a", 1));
    // "c" on base 1 puts the new key 9 into bucket 1; "b" on the same base puts 30, 31 and 9 into
    // buckets 1, 2 and 3 and commits first; then the base expires.
    List<CommitMessage> ours = written(table, "c", 9);
    table.newCommit("b").commit(1, written(table, "b", 30, 31, 9));
    new SnapshotExpiration(table, new MaintenanceOptions(1, 1, Duration.ZERO, 1000)).expire();
    FileStoreTable committer = TestTables.catalog(dir).getTable(new Identifier("db", "kv"));
    committer.newCommit("c").commit(1, ours);
    // Key 9 moved to b's bucket, with c's (later) value.
    assertThat(TestTables.readKeyValues(committer))
        .isEqualTo(Map.of(1, "a1", 30, "b30", 31, "b31", 9, "c9"));
  }

  @Test
  void theIndexFilesOfTheWritersBaseAreNotReadAgain() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    List<String> hashReads = new ArrayList<>();
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (path.name().endsWith(".hash")) {
            synchronized (hashReads) {
              hashReads.add(path.name());
            }
          }
        });
    FileStoreTable table =
        new FileSystemCatalog(io, dev.lockstep.fs.Path.of(dir.toString()), Map.of())
            .createTable(
                new Identifier("db", "kv"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .option("bucket", "-1")
                    .option("dynamic-bucket.target-row-num", "1")
                    .build());
    table.newCommit("a").commit(1, written(table, "a", 1, 2));
    List<CommitMessage> ours = written(table, "c", 9);
    assertThat(ours.get(0).baseSnapshotId()).isEqualTo(1);
    IndexChanges changes = IndexChanges.write(table, ours).orElseThrow();
    hashReads.clear();
    // The writer loaded the base's index: checking the base itself reads none of its files.
    changes.check(table.snapshotManager().find(1).orElseThrow());
    assertThat(hashReads).isEmpty();
    changes.deleteFiles();
  }

  @Test
  void aFailedIndexFileWriteDeletesTheIndexFilesWrittenBeforeIt() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table =
        TestTables.keyValueTable(
            dir, Map.of("bucket", "-1", "dynamic-bucket.target-row-num", "1"), io);
    table.newCommit("a").commit(1, written(table, "a", 1));
    Set<String> before = indexFiles();
    // Three new keys, three buckets: the third index file's write fails.
    List<CommitMessage> ours = written(table, "c", 7, 8, 9);
    java.util.concurrent.atomic.AtomicInteger hashWrites =
        new java.util.concurrent.atomic.AtomicInteger();
    io.failNextMatching(
        Operation.WRITE,
        p -> p.name().endsWith(".hash") && hashWrites.incrementAndGet() == 3,
        dev.lockstep.conformance.FaultPlan.Fault.FAIL_BEFORE_LANDING,
        1);

    assertThatThrownBy(() -> IndexChanges.write(table, ours)).isInstanceOf(IOException.class);
    io.clearFaults();

    assertThat(hashWrites).hasValue(3);
    assertThat(indexFiles()).as("the two index files written first are deleted").isEqualTo(before);
    // The commit then goes through with all three keys.
    table.newCommit("c").commit(1, ours);
    assertThat(TestTables.readKeyValues(table))
        .isEqualTo(Map.of(1, "a1", 7, "c7", 8, "c8", 9, "c9"));
  }
}
