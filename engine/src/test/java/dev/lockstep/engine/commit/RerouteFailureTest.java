package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CleanableFailure;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic buckets: an APPEND that re-routed keys into the winners' buckets (KeyRerouter) and then
 * fails without publishing deletes the files the re-routing wrote and its index files, and keeps
 * the caller's files (the messages commit later); a commit that keeps meeting key-hash assignments
 * of other writers gives up at {@code commit.max-retries} with nothing committed. Real local store,
 * the other writer commits first, the store fails the publish.
 */
class RerouteFailureTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "kv");

  private FileStoreTable table(FaultInjectingStore io, String maxRetries) throws IOException {
    FileSystemCatalog catalog = new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
    if (!catalog.tableExists(ID)) {
      // One row per bucket: a writer puts its first new key into bucket 0, its second into 1.
      catalog.createTable(
          ID,
          Schema.newBuilder()
              .column("k", DataType.intType())
              .column("v", DataType.string())
              .primaryKey("k")
              .option("bucket", "-1")
              .option("dynamic-bucket.target-row-num", "1")
              .option("commit.max-retries", maxRetries)
              .build());
    }
    return catalog.getTable(ID);
  }

  private static List<CommitMessage> written(FileStoreTable table, String user, int... keys)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      for (int k : keys) {
        write.write(GenericRow.of(k, user + k));
      }
      return write.prepareCommit();
    }
  }

  /** The data files in bucket {@code bucket} of the unpartitioned table. */
  private static Set<String> files(FileStoreTable table, int bucket) throws IOException {
    Set<String> names = new TreeSet<>();
    Path path = table.bucketPath("", bucket);
    if (!table.fileIO().exists(path)) {
      return names;
    }
    for (FileStatus s : table.fileIO().list(path)) {
      names.add(s.path().name());
    }
    return names;
  }

  @Test
  void aReroutedCommitThatFailsDeletesWhatTheReroutingWroteAndKeepsTheCallersFiles()
      throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, "10");
    // "c" on the empty base puts key 7 into bucket 0 and 8 into bucket 1; "a" on the same base
    // puts 1 into bucket 0 and 7 into bucket 1, and commits first: c's key 7 must move to bucket
    // 1, and c's commit still assigns key 8.
    List<CommitMessage> ours = written(table, "c", 7, 8);
    assertThat(ours).extracting(CommitMessage::bucket).containsExactlyInAnyOrder(0, 1);
    table.newCommit("a").commit(1, written(table, "a", 1, 7));
    Set<String> bucket0 = files(table, 0);
    Set<String> bucket1 = files(table, 1);
    Set<String> indexFiles = indexFiles();
    // Every publish of c's snapshot 2 (after the re-routing) fails before landing.
    io.failNextMatching(
        Operation.CREATE, p -> p.name().equals("snapshot-2"), Fault.FAIL_BEFORE_LANDING, 3);
    TableCommit commit = table.newCommit("c");

    assertThatThrownBy(() -> commit.commit(1, ours)).isInstanceOf(CleanableFailure.class);
    io.clearFaults();

    assertThat(commit.indexConflicts()).isEqualTo(1);
    assertThat(files(table, 0)).as("c's own file is kept").isEqualTo(bucket0);
    assertThat(files(table, 1)).as("the re-routed copy is deleted").isEqualTo(bucket1);
    assertThat(indexFiles()).as("c's index files are deleted").isEqualTo(indexFiles);
    // The same messages commit later: key 7 in one bucket, with c's later value.
    commit.commit(1, ours);
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "a1", 7, "c7", 8, "c8"));
  }

  @Test
  void aCommitThatKeepsMeetingOtherAssignmentsGivesUpAtTheRetryLimit() throws Exception {
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable table = table(io, "0");
    List<CommitMessage> ours = written(table, "c", 7);
    table.newCommit("a").commit(1, written(table, "a", 1, 7));
    Set<String> bucket0 = files(table, 0);
    Set<String> indexFiles = indexFiles();
    TableCommit commit = table.newCommit("c");

    assertThatThrownBy(() -> commit.commit(1, ours))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("kept meeting key-hash assignments of other writers (1 re-routings")
        .hasMessageContaining("nothing was committed");

    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(1);
    assertThat(files(table, 0)).isEqualTo(bucket0);
    assertThat(indexFiles()).isEqualTo(indexFiles);
  }

  private Set<String> indexFiles() throws IOException {
    Set<String> names = new TreeSet<>();
    java.nio.file.Path manifests = dir.resolve("db.db/kv/manifest");
    try (var files = java.nio.file.Files.list(manifests)) {
      files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("index-"))
          .forEach(names::add);
    }
    return names;
  }
}
