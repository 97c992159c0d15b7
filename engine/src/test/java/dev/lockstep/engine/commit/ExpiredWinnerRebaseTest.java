package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit that lost the race for snapshot N and then finds N (and the snapshots after it) expired
 * before it could read their deltas rebases on the newest snapshot, checked against that snapshot's
 * live files instead of the deltas it can no longer read (CommitLoop, after a conflict). An APPEND
 * lands on the newest snapshot with nothing lost; a COMPACT whose input files another compaction
 * replaced in the expired snapshots is dropped (landing it would delete files that are no longer
 * live and add a second copy of their rows), its output deleted. Real local store; the other writer
 * and the expiration act at the exact moments, through a second table object.
 */
class ExpiredWinnerRebaseTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");

  /** Keeps one snapshot, expires the rest after 1 ms. */
  private static final Map<String, String> TINY_RETENTION =
      Map.of(
          "snapshot.num-retained.min", "1",
          "snapshot.num-retained.max", "1",
          "snapshot.time-retained", "1 ms",
          "commit.max-retry-wait", "20 ms");

  private FileStoreTable create(boolean primaryKey) throws IOException {
    Schema.Builder schema =
        Schema.newBuilder().column("k", DataType.intType()).column("v", DataType.string());
    if (primaryKey) {
      schema.primaryKey("k");
    }
    return catalog(new LocalFileIO()).createTable(ID, schema.options(TINY_RETENTION).build());
  }

  private FileSystemCatalog catalog(FileIO io) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private static void append(FileStoreTable table, String user, long identifier, int key)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(key, user));
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  private static Map<Integer, Integer> keyCounts(FileStoreTable table) throws IOException {
    Map<Integer, Integer> counts = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      counts.merge((Integer) row.get(0), 1, Integer::sum);
    }
    return counts;
  }

  /**
   * Right before our snapshot-{@code id} lands, {@code others} commits snapshot {@code id} through
   * {@code winner}; at the second read of that snapshot through our store (the first is lock-api's
   * read-back of the lost race), {@code others} appends two more and expiration keeps only the
   * newest: the winner's delta is gone before our catch-up reads it.
   */
  private static AtomicInteger loseThenExpire(
      FaultInjectingStore io, FileStoreTable others, long id, IoAction winner) {
    AtomicBoolean raced = new AtomicBoolean();
    AtomicInteger reads = new AtomicInteger();
    String name = "snapshot-" + id;
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals(name) && raced.compareAndSet(false, true)) {
            winner.run();
          }
        });
    io.beforeLanding(
        Operation.READ,
        (op, path) -> {
          if (raced.get() && path.name().equals(name) && reads.incrementAndGet() == 2) {
            append(others, "others", 1001, 3);
            append(others, "others", 1002, 4);
            assertThat(others.snapshotManager().log().listIds()).containsExactly(id + 2);
          }
        });
    return reads;
  }

  /** Our full compaction of the table's one bucket, prepared and not committed: two files in. */
  private static List<CommitMessage> compactionOf(FileStoreTable ours) throws IOException {
    List<CommitMessage> compaction;
    try (TableWrite write = ours.newWrite("ours")) {
      write.compact(true);
      compaction = write.prepareCommit();
    }
    assertThat(compaction).singleElement().satisfies(m -> assertThat(m.compactBefore()).hasSize(2));
    return compaction;
  }

  @FunctionalInterface
  private interface IoAction {
    void run() throws IOException;
  }

  @Test
  void anAppendWhoseWinnerExpiredLandsOnTheNewestSnapshotWithNothingLost() throws Exception {
    FileStoreTable others = create(false);
    append(others, "others", 1, 1);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(100, "ours"));
      messages = write.prepareCommit();
    }
    AtomicInteger reads = loseThenExpire(io, others, 2, () -> append(others, "others", 1000, 2));

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(reads).hasValueGreaterThanOrEqualTo(2);
    assertThat(result.retries()).isEqualTo(1);
    assertThat(result.dataSnapshotId()).as("built on the newest snapshot, 4").isEqualTo(5);
    var snapshots = others.snapshotManager();
    assertThat(snapshots.get(5).commitUser()).isEqualTo("ours");
    assertThat(keyCounts(others)).isEqualTo(Map.of(1, 1, 2, 1, 3, 1, 4, 1, 100, 1));
  }

  @Test
  void aCompactionWhoseInputsWereCompactedInExpiredSnapshotsIsDroppedNotLanded() throws Exception {
    FileStoreTable others = create(true);
    append(others, "others", 1, 1);
    append(others, "others", 2, 2);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> compaction = compactionOf(ours);
    List<DataFileMeta> ourOutput = new ArrayList<>(compaction.get(0).compactAfter());
    assertThat(ourOutput).isNotEmpty();
    CommitMessage ourMessage = compaction.get(0);
    AtomicInteger reads =
        loseThenExpire(
            io,
            others,
            3,
            () -> {
              try (TableWrite write = others.newWrite("others")) {
                write.compact(true);
                others.newCommit("others").commit(999, write.prepareCommit());
              }
            });

    CommitResult result = ours.newCommit("ours").commit(1, compaction);

    assertThat(reads).hasValueGreaterThanOrEqualTo(2);
    assertThat(others.snapshotManager().get(3).commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(others.snapshotManager().get(3).commitUser()).isEqualTo("others");
    assertThat(result.compactSnapshotId()).isEqualTo(-1);
    assertThat(result.droppedCompactions())
        .containsExactly(new BucketId(ourMessage.partition(), ourMessage.bucket()));
    assertThat(others.snapshotManager().latestId().getAsLong())
        .as("nothing of ours published")
        .isEqualTo(5);
    for (DataFileMeta f : ourOutput) {
      assertThat(
              others
                  .fileIO()
                  .exists(
                      others
                          .bucketPath(ourMessage.partition(), ourMessage.bucket())
                          .child(f.fileName())))
          .as("our dropped compaction's output %s is deleted", f.fileName())
          .isFalse();
    }
    assertThat(keyCounts(others)).isEqualTo(Map.of(1, 1, 2, 1, 3, 1, 4, 1));
  }

  /**
   * A compaction that loses to an APPEND (new keys, no file of ours touched) whose snapshots then
   * expire lands on the newest snapshot: checked against the live files of the partitions it
   * touches, its inputs are still live, so it is neither dropped nor a conflict.
   */
  @Test
  void aCompactionWhoseInputsAreStillLiveLandsOnTheNewestSnapshot() throws Exception {
    FileStoreTable others = create(true);
    append(others, "others", 1, 1);
    append(others, "others", 2, 2);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> compaction = compactionOf(ours);
    AtomicInteger reads = loseThenExpire(io, others, 3, () -> append(others, "others", 999, 5));

    CommitResult result = ours.newCommit("ours").commit(1, compaction);

    assertThat(reads).hasValueGreaterThanOrEqualTo(2);
    assertThat(result.droppedCompactions()).isEmpty();
    assertThat(result.compactSnapshotId()).as("built on the newest snapshot, 5").isEqualTo(6);
    assertThat(others.snapshotManager().get(6).commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(others.snapshotManager().get(6).commitUser()).isEqualTo("ours");
    assertThat(keyCounts(others)).isEqualTo(Map.of(1, 1, 2, 1, 3, 1, 4, 1, 5, 1));
  }

  /**
   * The first commit of a table loses snapshot 1, which expires (with the snapshot after it) before
   * the catch-up reads it: the commit has no base at all and rebases on the newest snapshot.
   */
  @Test
  void aFirstCommitWhoseWinnerExpiredLandsOnTheNewestSnapshot() throws Exception {
    FileStoreTable others = create(false);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(100, "ours"));
      messages = write.prepareCommit();
    }
    AtomicInteger reads = loseThenExpire(io, others, 1, () -> append(others, "others", 1000, 1));

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(reads).hasValueGreaterThanOrEqualTo(2);
    assertThat(result.retries()).isEqualTo(1);
    assertThat(result.dataSnapshotId()).as("built on the newest snapshot, 3").isEqualTo(4);
    assertThat(others.snapshotManager().get(4).commitUser()).isEqualTo("ours");
    assertThat(keyCounts(others)).isEqualTo(Map.of(1, 1, 3, 1, 4, 1, 100, 1));
  }

  /**
   * Dynamic buckets: our writer put the new key 9 into bucket 1; the winner of snapshot 2 put 9
   * into bucket 3, and snapshots 2 and 3 expired before our catch-up read their index files. The
   * rebase on the newest snapshot checks our key-hash assignments against it too
   * (IndexConflictException), so the commit moves key 9 into the winner's bucket instead of landing
   * it in a second bucket, where a later update or delete would miss one copy.
   */
  @Test
  void aDynamicBucketKeyAssignedInTheExpiredSnapshotsMovesToTheWinnersBucket() throws Exception {
    Map<String, String> options = new java.util.HashMap<>(TINY_RETENTION);
    options.put("bucket", "-1");
    options.put("dynamic-bucket.target-row-num", "1");
    FileStoreTable others =
        catalog(new LocalFileIO())
            .createTable(
                ID,
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .primaryKey("k")
                    .options(options)
                    .build());
    append(others, "a", 1, 1);
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    // On base 1 (key 1 in bucket 0), our writer puts the new key 9 into bucket 1.
    List<CommitMessage> messages;
    try (TableWrite write = ours.newWrite("ours")) {
      write.write(GenericRow.of(9, "ours"));
      messages = write.prepareCommit();
    }
    assertThat(messages).singleElement().satisfies(m -> assertThat(m.bucket()).isEqualTo(1));
    // The winner, on the same base, puts 30, 31 and 9 into buckets 1, 2 and 3.
    AtomicInteger reads =
        loseThenExpire(
            io,
            others,
            2,
            () -> {
              try (TableWrite write = others.newWrite("b")) {
                write.write(GenericRow.of(30, "b"));
                write.write(GenericRow.of(31, "b"));
                write.write(GenericRow.of(9, "b"));
                others.newCommit("b").commit(1, write.prepareCommit());
              }
            });

    CommitResult result = ours.newCommit("ours").commit(1, messages);

    assertThat(reads).hasValueGreaterThanOrEqualTo(2);
    assertThat(result.dataSnapshotId()).as("built on the newest snapshot, 4").isEqualTo(5);
    // Key 9 once, with our (later) value; readKeyValues fails on a key read twice.
    assertThat(dev.lockstep.engine.TestTables.readKeyValues(others))
        .isEqualTo(Map.of(1, "a", 3, "others", 4, "others", 9, "ours", 30, "b", 31, "b"));
  }
}
