package dev.lockstep.engine.scan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LiveFileCache#index}: the committer's live files by partition and bucket, with the bucket
 * counts of each partition, which the commit's conflict check queries for what it touches only
 * (issue 20). Checked against a full plan ({@link FileStoreScan#liveFiles}) after every commit of a
 * real table: appends to random buckets of two partitions and compactions that delete random live
 * files, moved forward through the deltas and reloaded after more than {@code MAX_STEPS} snapshots.
 */
class LiveFileCacheIndexTest {

  @TempDir java.nio.file.Path dir;

  private static DataFileMeta file(String name) {
    return new DataFileMeta(name, 1000, 10, null, null, 0, 9, 0, 0, 1L, DataFileMeta.UNCOMMITTED);
  }

  @Test
  void indexAgreesWithAFullPlanAfterEveryCommit() throws Exception {
    FileSystemCatalog catalog =
        new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of());
    FileStoreTable table =
        catalog.createTable(
            new Identifier("db", "t"),
            Schema.newBuilder()
                .column("p", DataType.string())
                .column("n", DataType.bigint())
                .partitionKeys("p")
                .option("bucket", "4")
                .build());
    TableCommit commit = table.newCommit("w");
    LiveFileCache cache = new LiveFileCache(table);
    FileStoreScan scan = table.store();
    Random random = new Random(34);
    List<String[]> live = new ArrayList<>(); // partition, bucket, name
    int next = 0;
    for (int c = 1; c <= 260; c++) {
      String partition = "p=" + (random.nextBoolean() ? "a" : "b");
      int bucket = random.nextInt(4);
      List<DataFileMeta> before = new ArrayList<>();
      if (c % 7 == 0) {
        for (String[] f : new ArrayList<>(live)) {
          if (f[0].equals(partition) && Integer.parseInt(f[1]) == bucket && before.size() < 3) {
            before.add(file(f[2]));
            live.remove(f);
          }
        }
      }
      String name = "data-" + next++ + ".parquet";
      live.add(new String[] {partition, Integer.toString(bucket), name});
      CommitMessage message =
          before.isEmpty()
              ? new CommitMessage(
                  partition, bucket, 4, List.of(file(name)), List.of(), List.of(), 0)
              : new CommitMessage(partition, bucket, 4, List.of(), before, List.of(file(name)), 0);
      commit.commit(c, List.of(message));
      // Now and then the cache skips more than MAX_STEPS snapshots (a reload).
      if (c % 3 != 0 && c != 150) {
        continue;
      }
      Snapshot latest = table.snapshotManager().latest().orElseThrow();
      LiveFileCache.Index index = cache.index(latest);
      Map<ManifestEntry.FileId, ManifestEntry> planned = scan.liveFiles(latest);
      for (String p : List.of("p=a", "p=b", "p=c")) {
        Set<ManifestEntry.FileId> inPartition = new HashSet<>();
        for (int b = 0; b < 4; b++) {
          Set<ManifestEntry.FileId> expected = new HashSet<>();
          for (ManifestEntry e : planned.values()) {
            if (e.partition().equals(p) && e.bucket() == b) {
              expected.add(e.id());
            }
          }
          Set<ManifestEntry.FileId> actual = new HashSet<>();
          index.files(p, b).forEach(e -> actual.add(e.id()));
          assertThat(actual).as("bucket %d of %s after commit %d", b, p, c).isEqualTo(expected);
          inPartition.addAll(expected);
        }
        Set<ManifestEntry.FileId> all = new HashSet<>();
        index.files(p).forEach(e -> all.add(e.id()));
        assertThat(all).isEqualTo(inPartition);
        assertThat(index.totalBuckets(p)).isEqualTo(inPartition.isEmpty() ? Set.of() : Set.of(4));
      }
      for (ManifestEntry.FileId id : planned.keySet()) {
        assertThat(index.contains(id)).isTrue();
      }
      assertThat(index.contains(new ManifestEntry.FileId("p=a", 0, "data-none.parquet"))).isFalse();
      assertThat(planned).hasSize(live.size());
    }
  }
}
