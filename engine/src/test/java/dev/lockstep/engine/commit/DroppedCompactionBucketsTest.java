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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dropped compactions in two buckets (TableCommit.commit with FileConflictException's partition and
 * bucket): each conflict names the bucket whose compaction is dropped. Real local store, a
 * partitioned primary-key table with two buckets.
 */
class DroppedCompactionBucketsTest {

  @TempDir java.nio.file.Path dir;

  /**
   * Two buckets, both compacted by two writers on the same snapshot: the second writer's
   * compactions of both buckets are dropped, each found by the bucket its conflict names (and its
   * own output deleted), not the first bucket twice.
   */
  @Test
  void theSecondCompactionsOfTwoBucketsAreDroppedEachByItsBucket() throws Exception {
    FileSystemCatalog catalog =
        new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of());
    Identifier id = new Identifier("db", "two");
    catalog.createTable(
        id,
        Schema.newBuilder()
            .column("dt", DataType.string())
            .column("k", DataType.intType())
            .column("v", DataType.string())
            .partitionKeys("dt")
            .primaryKey("dt", "k")
            .option("bucket", "2")
            .build());
    FileStoreTable first = catalog.getTable(id);
    for (long identifier = 1; identifier <= 2; identifier++) {
      try (TableWrite write = first.newWrite("w")) {
        for (int k = 0; k < 16; k++) {
          write.write(GenericRow.of("x", k, "v" + identifier));
        }
        first.newCommit("w").commit(identifier, write.prepareCommit());
      }
    }
    FileStoreTable second = catalog.getTable(id);
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
    List<CommitMessage> compactions =
        loser.stream().filter(m -> !m.compactAfter().isEmpty()).toList();
    assertThat(compactions).extracting(CommitMessage::bucket).containsExactlyInAnyOrder(0, 1);
    first.newCommit("c1").commit(1, winner);

    TableCommit commit = second.newCommit("c2");
    CommitResult result = commit.commit(1, loser);

    assertThat(result.compactSnapshotId()).isEqualTo(-1);
    assertThat(result.droppedCompactions())
        .containsExactlyInAnyOrder(
            compactions.stream()
                .map(m -> new BucketId(m.partition(), m.bucket()))
                .toArray(BucketId[]::new));
    assertThat(commit.fileConflicts()).isEqualTo(2);
    for (CommitMessage m : compactions) {
      for (DataFileMeta f : m.compactAfter()) {
        assertThat(
                second
                    .fileIO()
                    .exists(second.bucketPath(m.partition(), m.bucket()).child(f.fileName())))
            .as("the dropped compaction's output %s is deleted", f.fileName())
            .isFalse();
      }
    }
  }
}
