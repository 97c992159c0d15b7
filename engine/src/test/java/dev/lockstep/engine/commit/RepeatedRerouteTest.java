package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic buckets: {@code commit.max-retries} bounds the re-routings of one commit, counted per
 * round. With a limit of 1 a commit (APPEND or OVERWRITE) that meets other writers' key-hash
 * assignments twice in a row, the second time right after it re-routed the first conflict's keys,
 * gives up after two re-routings, with nothing committed and only the caller's files left (the
 * first re-routing's copies deleted). Real local store; the second writer commits while our
 * re-routing writes its copy.
 */
class RepeatedRerouteTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ID = new Identifier("db", "t");

  private FileSystemCatalog catalog(FileIO io) {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of());
  }

  private void create() throws IOException {
    // One key per bucket of a partition: a writer puts each new key into the next empty bucket.
    catalog(new LocalFileIO())
        .createTable(
            ID,
            Schema.newBuilder()
                .column("p", DataType.intType())
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .partitionKeys("p")
                .primaryKey("p", "k")
                .option("bucket", "-1")
                .option("dynamic-bucket.target-row-num", "1")
                .option("commit.max-retries", "1")
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

  private static List<String> rows(FileStoreTable table) throws IOException {
    List<String> out = new ArrayList<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      out.add(row.get(0) + "/" + row.get(1) + "=" + row.get(2));
    }
    return out;
  }

  /**
   * Our writer (on the store {@code io}) wrote p=2 keys 7 and 8 (buckets 0 and 1, plus {@code
   * extra}); "a" then commits p=2 keys 1 and 7 (7 into bucket 1). While our re-routing of key 7
   * writes its copy, "b" commits p=2 key 8 into another bucket than ours: the next round meets it.
   */
  private List<CommitMessage> twoConflicts(
      FileStoreTable ours, FaultInjectingStore io, FileStoreTable others, GenericRow... extra)
      throws IOException {
    List<GenericRow> rows = new ArrayList<>(List.of(extra));
    rows.add(GenericRow.of(2, 7, "ours"));
    rows.add(GenericRow.of(2, 8, "ours"));
    List<CommitMessage> messages = written(ours, "ours", rows.toArray(GenericRow[]::new));
    others
        .newCommit("a")
        .commit(1, written(others, "a", GenericRow.of(2, 1, "a"), GenericRow.of(2, 7, "a")));
    List<CommitMessage> b = written(others, "b", GenericRow.of(2, 8, "b"));
    assertThat(b).singleElement().satisfies(m -> assertThat(m.bucket()).isEqualTo(2));
    AtomicBoolean once = new AtomicBoolean();
    io.beforeLanding(
        Operation.WRITE,
        (operation, path) -> {
          if (path.name().startsWith("data-") && once.compareAndSet(false, true)) {
            others.newCommit("b").commit(1, b);
          }
        });
    return messages;
  }

  private static void onlyCallersFilesLeft(FileStoreTable table, List<CommitMessage> messages)
      throws Exception {
    List<String> callers = new ArrayList<>();
    messages.forEach(m -> m.newFiles().forEach(f -> callers.add(f.fileName())));
    assertThat(OverwriteEdgesTest.unreferenced(table))
        .as("unreferenced files: the caller's data files only")
        .hasSize(callers.size())
        .allMatch(p -> callers.stream().anyMatch(p::endsWith));
  }

  @Test
  void anAppendGivesUpAfterTwoReroutingsWithALimitOfOne() throws Exception {
    create();
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    FileStoreTable others = catalog(new LocalFileIO()).getTable(ID);
    List<CommitMessage> messages = twoConflicts(ours, io, others);
    TableCommit commit = ours.newCommit("ours");

    assertThatThrownBy(() -> commit.commit(1, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("kept meeting key-hash assignments of other writers (2 re-routings");
    io.clearFaults();

    assertThat(commit.indexConflicts()).isEqualTo(2);
    assertThat(ours.snapshotManager().latestId().getAsLong()).isEqualTo(2);
    assertThat(rows(ours)).containsExactlyInAnyOrder("2/1=a", "2/7=a", "2/8=b");
    onlyCallersFilesLeft(ours, messages);
  }

  @Test
  void anOverwriteGivesUpAfterTwoReroutingsWithALimitOfOne() throws Exception {
    create();
    FileStoreTable others = catalog(new LocalFileIO()).getTable(ID);
    others.newCommit("loader").commit(1, written(others, "loader", GenericRow.of(1, 1, "old")));
    FaultInjectingStore io = FaultInjectingStore.wrap(new LocalFileIO());
    FileStoreTable ours = catalog(io).getTable(ID);
    List<CommitMessage> messages = twoConflicts(ours, io, others, GenericRow.of(1, 100, "new"));
    TableCommit commit = ours.newCommit("ours");

    // Replaces p=1; its messages also add to p=2, where the other writers assign the same keys.
    assertThatThrownBy(() -> commit.overwrite(1, "p=1"::equals, messages))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining("OVERWRITE commit 1 kept meeting key-hash assignments");
    io.clearFaults();

    assertThat(commit.indexConflicts()).isEqualTo(2);
    assertThat(ours.snapshotManager().latestId().getAsLong()).isEqualTo(3);
    assertThat(rows(ours)).containsExactlyInAnyOrder("1/1=old", "2/1=a", "2/7=a", "2/8=b");
    onlyCallersFilesLeft(ours, messages);
  }
}
