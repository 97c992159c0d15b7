package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two compactions of the same bucket of a partition planned on the same snapshot: the first lands,
 * the second meets a file conflict (its inputs are no longer live) and is dropped, not failed
 * (TableCommit.commit): the result names the dropped (partition, bucket), the object counts the
 * conflict, and the dropped compaction's output files are deleted from that partition's bucket
 * (left, they would be orphans). Real local store, a partitioned primary-key table.
 */
class DroppedCompactionTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable table() throws IOException {
    FileSystemCatalog catalog =
        new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of());
    Identifier id = new Identifier("db", "kv");
    if (catalog.tableExists(id)) {
      return catalog.getTable(id);
    }
    return catalog.createTable(
        id,
        Schema.newBuilder()
            .column("dt", DataType.string())
            .column("k", DataType.intType())
            .column("v", DataType.string())
            .partitionKeys("dt")
            .primaryKey("dt", "k")
            .build());
  }

  private static void upsert(FileStoreTable table, long identifier, int k, String v)
      throws IOException {
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of("x", k, v));
      table.newCommit("w").commit(identifier, write.prepareCommit());
    }
  }

  private static Map<Integer, String> rows(FileStoreTable table) throws IOException {
    Map<Integer, String> rows = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      rows.put((Integer) row.get(1), row.get(0) + "/" + row.get(2));
    }
    return rows;
  }

  @Test
  void theSecondCompactionOfABucketIsDroppedWithItsOutputDeleted() throws Exception {
    FileStoreTable first = table();
    upsert(first, 1, 1, "a");
    upsert(first, 2, 2, "a");
    FileStoreTable second = table();
    List<CommitMessage> winner;
    try (TableWrite write = first.newWrite("c1")) {
      write.compact(true);
      winner = write.prepareCommit();
    }
    List<CommitMessage> loser;
    try (TableWrite write = second.newWrite("c2")) {
      write.compact(true);
      loser = write.prepareCommit();
    }
    CommitMessage compaction =
        loser.stream().filter(m -> !m.compactAfter().isEmpty()).findFirst().orElseThrow();
    assertThat(compaction.partition()).isNotEmpty();
    List<DataFileMeta> output = compaction.compactAfter();
    assertThat(first.newCommit("c1").commit(1, winner).compactSnapshotId()).isEqualTo(3);

    TableCommit commit = second.newCommit("c2");
    CommitResult result = commit.commit(1, loser);

    assertThat(result.dataSnapshotId()).isEqualTo(-1);
    assertThat(result.compactSnapshotId()).isEqualTo(-1);
    assertThat(result.droppedCompactions())
        .containsExactly(new BucketId(compaction.partition(), compaction.bucket()));
    assertThat(commit.fileConflicts()).isEqualTo(1);
    for (DataFileMeta f : output) {
      assertThat(
              second
                  .fileIO()
                  .exists(
                      second
                          .bucketPath(compaction.partition(), compaction.bucket())
                          .child(f.fileName())))
          .as("the dropped compaction's output %s is deleted", f.fileName())
          .isFalse();
    }
    assertThat(second.snapshotManager().latestId().getAsLong()).isEqualTo(3);
    assertThat(rows(table())).isEqualTo(Map.of(1, "x/a", 2, "x/a"));
  }
}
