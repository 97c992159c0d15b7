package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic buckets: an OVERWRITE whose messages also write to a partition it does not replace (the
 * Java API allows it: the filter names the replaced partitions, the messages may add elsewhere)
 * meets the key-hash assignments of a writer that appended to that partition since the overwrite's
 * base. The early check lets that append pass (its partition is not replaced), the index check does
 * not: the overwrite moves those keys' rows into the winner's buckets ({@link KeyRerouter}) and
 * commits again, so that no key is in two buckets. After it lands the caller's rewritten file is
 * deleted; at {@code commit.max-retries} it gives up, and after a failure that published nothing it
 * deletes what the re-routing and the index wrote and keeps the caller's files. Real local store,
 * the other writer commits first, faults come from FaultInjectingStore.
 */
class OverwriteRerouteTest {

  @TempDir java.nio.file.Path dir;

  private static final Predicate<String> ONLY_P1 = "p=1"::equals;

  private FileStoreTable table(FaultInjectingStore io, String maxRetries) throws IOException {
    // One key per bucket: a writer puts its first new key of a partition into bucket 0, its
    // second into bucket 1.
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of())
        .createTable(
            new Identifier("db", "t"),
            Schema.newBuilder()
                .column("p", DataType.intType())
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .partitionKeys("p")
                .primaryKey("p", "k")
                .option("bucket", "-1")
                .option("dynamic-bucket.target-row-num", "1")
                .option("commit.max-retries", maxRetries)
                .build());
  }

  private static List<CommitMessage> written(FileStoreTable table, String user, GenericRow... rows)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      for (GenericRow row : rows) {
        write.write(row);
      }
      return write.prepareCommit();
    }
  }

  /** Rows as "p/k=v". */
  private static List<String> rows(FileStoreTable table) throws IOException {
    List<String> out = new ArrayList<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      out.add(row.get(0) + "/" + row.get(1) + "=" + row.get(2));
    }
    return out;
  }

  /** The live files of partition p=2 at the latest snapshot, as "bucket/name". */
  private static Set<String> liveInP2(FileStoreTable table) throws IOException {
    Set<String> out = new TreeSet<>();
    for (ManifestEntry e :
        table.store().liveFiles(table.snapshotManager().latest().orElseThrow()).values()) {
      if (e.partition().equals("p=2")) {
        out.add(e.bucket() + "/" + e.file().fileName());
      }
    }
    return out;
  }

  /**
   * Snapshot 1: p=1 key 1. The overwrite's writer, on base 1, writes p=1 key 100 and p=2 key 7
   * (bucket 0 of the new partition p=2); then writer "a" commits p=2 keys 1 and 7 (bucket 0 and 1)
   * as snapshot 2. Returns the overwrite's messages.
   */
  private List<CommitMessage> raced(FileStoreTable table) throws IOException {
    table.newCommit("loader").commit(1, written(table, "loader", GenericRow.of(1, 1, "old")));
    List<CommitMessage> ours =
        written(table, "batch", GenericRow.of(1, 100, "new"), GenericRow.of(2, 7, "batch"));
    assertThat(ours)
        .filteredOn(m -> m.partition().equals("p=2"))
        .singleElement()
        .satisfies(m -> assertThat(m.bucket()).isZero());
    table
        .newCommit("a")
        .commit(1, written(table, "a", GenericRow.of(2, 1, "a"), GenericRow.of(2, 7, "a")));
    assertThat(liveInP2(table)).hasSize(2);
    return ours;
  }

  private static String p2File(List<CommitMessage> messages) {
    return messages.stream()
        .filter(m -> m.partition().equals("p=2"))
        .findFirst()
        .orElseThrow()
        .newFiles()
        .get(0)
        .fileName();
  }

  @Test
  void anOverwriteMeetingAnotherWritersAssignmentsReroutesThoseKeysAndLands() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, "10");
    List<CommitMessage> ours = raced(table);
    String callersP2File = p2File(ours);
    TableCommit batch = table.newCommit("batch");

    CommitResult result = batch.overwrite(1, ONLY_P1, ours);

    assertThat(result.dataSnapshotId()).isEqualTo(3);
    assertThat(table.snapshotManager().get(3).commitKind()).isEqualTo(CommitKind.OVERWRITE);
    assertThat(batch.indexConflicts()).isEqualTo(1);
    // p=1 replaced; in p=2 key 7 lives in bucket 1 only, with the overwrite's later value.
    assertThat(rows(table)).containsExactlyInAnyOrder("1/100=new", "2/1=a", "2/7=batch");
    Set<String> p2 = liveInP2(table);
    assertThat(p2).hasSize(3).noneMatch(f -> f.endsWith(callersP2File));
    assertThat(p2.stream().filter(f -> f.startsWith("0/"))).hasSize(1);
    // The rewritten original and the first plan's index files are gone.
    assertThat(table.fileIO().exists(table.bucketPath("p=2", 0).child(callersP2File))).isFalse();
    assertThat(OverwriteEdgesTest.unreferenced(table)).isEmpty();
    // A new writer of p=2 finds key 7 in bucket 1: its update replaces the overwrite's row.
    table.newCommit("b").commit(1, written(table, "b", GenericRow.of(2, 7, "b")));
    assertThat(rows(table)).containsExactlyInAnyOrder("1/100=new", "2/1=a", "2/7=b");
  }

  @Test
  void atTheRetryLimitTheOverwriteGivesUpAndLeavesOnlyTheCallersFiles() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, "0");
    List<CommitMessage> ours = raced(table);
    TableCommit batch = table.newCommit("batch");

    assertThatThrownBy(() -> batch.overwrite(1, ONLY_P1, ours))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("OVERWRITE commit 1 kept meeting key-hash assignments")
        .hasMessageContaining("nothing was committed");

    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(2);
    assertThat(batch.indexConflicts()).isEqualTo(1);
    assertThat(rows(table)).containsExactlyInAnyOrder("1/1=old", "2/1=a", "2/7=a");
    assertThat(callersFilesOnly(table, ours)).isTrue();
  }

  @Test
  void aReroutedOverwriteThatFailsBeforeLandingDeletesWhatTheReroutingWrote() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, "10");
    List<CommitMessage> ours = raced(table);
    // Every publish of snapshot 3 (after the re-routing) fails before landing.
    io.failNextMatching(
        Operation.CREATE, p -> p.name().equals("snapshot-3"), Fault.FAIL_BEFORE_LANDING, 3);
    TableCommit batch = table.newCommit("batch");

    assertThatThrownBy(() -> batch.overwrite(1, ONLY_P1, ours))
        .isInstanceOf(CleanableFailure.class);
    io.clearFaults();

    assertThat(batch.indexConflicts()).isEqualTo(1);
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(2);
    assertThat(callersFilesOnly(table, ours)).isTrue();
    // The same messages overwrite later.
    assertThat(batch.overwrite(1, ONLY_P1, ours).dataSnapshotId()).isEqualTo(3);
    assertThat(rows(table)).containsExactlyInAnyOrder("1/100=new", "2/1=a", "2/7=batch");
    assertThat(OverwriteEdgesTest.unreferenced(table)).isEmpty();
  }

  /** Whether the files no snapshot references are exactly the caller's data files. */
  private static boolean callersFilesOnly(FileStoreTable table, List<CommitMessage> messages)
      throws Exception {
    List<String> unreferenced = OverwriteEdgesTest.unreferenced(table);
    List<String> callers = new ArrayList<>();
    messages.forEach(m -> m.newFiles().forEach(f -> callers.add(f.fileName())));
    assertThat(unreferenced)
        .as("unreferenced files: the caller's data files only")
        .hasSize(callers.size())
        .allMatch(p -> callers.stream().anyMatch(p::endsWith));
    return true;
  }
}
