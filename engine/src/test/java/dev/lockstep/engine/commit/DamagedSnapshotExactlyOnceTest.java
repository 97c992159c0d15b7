package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.snapshot.DamagedFileException;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once check ((commit user, identifier) committed already?) on a table with a damaged
 * old snapshot (docs/engine.md, "Damaged snapshots and the exactly-once check"): an unreadable
 * snapshot proves nothing; one that might hold the identifier stops the commit naming the file; a
 * fresh commit user and a readable answer above the damage are not stopped, and nothing is
 * committed twice.
 */
class DamagedSnapshotExactlyOnceTest {

  @TempDir Path dir;

  /** Snapshots 1, 2 and 3 of an append table, by users a, b and c, identifier 1 each. */
  private FileStoreTable threeSnapshots() throws IOException {
    FileStoreTable table = TestTables.appendTable(dir, Map.of("write-only", "true"));
    for (String user : List.of("a", "b", "c")) {
      commit(table, table.newCommit(user), user, 1);
    }
    return table;
  }

  private static CommitResult commit(FileStoreTable table, TableCommit commit, String user, long n)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(user, n));
      List<CommitMessage> messages = write.prepareCommit();
      return commit.commit(n, messages);
    }
  }

  /** Empties snapshot {@code id} and opens the table again (no cached snapshot). */
  private FileStoreTable emptySnapshot(FileStoreTable table, long id) throws IOException {
    Files.write(LocalFileIO.toLocal(table.snapshotManager().log().snapshotPath(id)), new byte[0]);
    return TestTables.catalog(dir).getTable(new Identifier("db", "log"));
  }

  private static long rows(FileStoreTable table) throws IOException {
    return table.newRead().readAll(table.newScan().plan()).size();
  }

  @Test
  void anUnreadableSnapshotThatMightHoldTheIdentifierStopsTheCommitNamingTheFile()
      throws Exception {
    FileStoreTable table = emptySnapshot(threeSnapshots(), 2);

    // A user no readable snapshot names: snapshot 2 might be its identifier 1.
    assertThatThrownBy(() -> commit(table, table.newCommit("m"), "m", 1))
        .isInstanceOf(DamagedFileException.class)
        .hasMessageContaining("snapshot-2")
        .hasMessageContaining("empty")
        .hasMessageContaining("may hold commit user 'm' identifier 1");
    // User a (identifier 1 in snapshot 1): snapshot 2, above it, might be a's identifier 2.
    assertThatThrownBy(() -> table.newCommit("a").isCommitted(2))
        .isInstanceOf(DamagedFileException.class)
        .hasMessageContaining("snapshot-2");
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(3);
  }

  @Test
  void aReadableSnapshotAboveTheDamageAnswersAndTheCommitGoesOn() throws Exception {
    FileStoreTable table = emptySnapshot(threeSnapshots(), 2);
    TableCommit c = table.newCommit("c");

    assertThat(c.isCommitted(1)).isTrue(); // snapshot 3 proves it
    assertThat(c.isCommitted(2)).isFalse(); // c's identifier 1 in snapshot 3 bounds the scan
    assertThat(commit(table, c, "c", 2).alreadyCommitted()).isFalse();
    assertThat(commit(table, table.newCommit("c"), "c", 2).alreadyCommitted()).isTrue();
    assertThat(rows(table)).isEqualTo(4);
  }

  /**
   * The damage the check went past (a readable snapshot above it answered) is reported as a warning
   * (SkippedDamage, which the CLI prints): the operator learns of the damaged file although the
   * commit needed nothing from it. Snapshot 3 of 5 is damaged: the reads that find the earliest (1
   * and 2) and prove the latest (4) do not meet it, only the check does.
   */
  @Test
  void damageTheCheckWentPastIsReported() throws Exception {
    FileStoreTable loaded = threeSnapshots();
    commit(loaded, loaded.newCommit("d"), "d", 1);
    commit(loaded, loaded.newCommit("e"), "e", 1);
    FileStoreTable table = emptySnapshot(loaded, 3);
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(5);
    assertThat(table.snapshotManager().earliestId().getAsLong()).isEqualTo(1);
    assertThat(table.snapshotManager().skippedDamage().entries()).isEmpty();

    assertThat(table.newCommit("d").isCommitted(1)).isTrue(); // snapshot 4 proves it
    assertThat(table.snapshotManager().skippedDamage().entries())
        .extracting(e -> e.kind() + " " + e.file().substring(e.file().lastIndexOf('/') + 1))
        .containsExactly("snapshot snapshot-3");
    assertThat(commit(table, table.newCommit("d"), "d", 1).alreadyCommitted()).isTrue();
    assertThat(rows(table)).isEqualTo(5);
  }

  @Test
  void aFreshCommitUserIsNotStoppedByADamagedOldSnapshotAndARerunFindsItsCommits()
      throws Exception {
    FileStoreTable table = emptySnapshot(threeSnapshots(), 2);

    TableCommit fresh = table.newCommit("m").withFreshCommitUser();
    assertThat(commit(table, fresh, "m", 1).alreadyCommitted()).isFalse();
    assertThat(commit(table, fresh, "m", 2).alreadyCommitted()).isFalse();
    assertThat(rows(table)).isEqualTo(5);

    // A rerun (not fresh) finds both above the damage: nothing is committed twice.
    TableCommit rerun = table.newCommit("m");
    assertThat(rerun.isCommitted(1)).isTrue();
    assertThat(rerun.isCommitted(2)).isTrue();
    assertThat(commit(table, rerun, "m", 3).alreadyCommitted()).isFalse();
    assertThat(rows(table)).isEqualTo(6);
  }

  @Test
  void aCompactionIsNotStoppedByADamagedOldSnapshotAndReadsBackTheSame() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of("write-only", "true"));
    for (int round = 0; round < 3; round++) {
      try (TableWrite write = table.newWrite("w")) {
        for (int k = 0; k < 20; k++) {
          write.write(GenericRow.of(k, "v" + round));
        }
        table.newCommit("w").commit(round + 1, write.prepareCommit());
      }
    }
    Map<Integer, String> before = TestTables.readKeyValues(table);
    Files.write(LocalFileIO.toLocal(table.snapshotManager().log().snapshotPath(2)), new byte[0]);
    FileStoreTable reopened = TestTables.catalog(dir).getTable(new Identifier("db", "kv"));

    try (TableCompactor compactor = new TableCompactor(reopened, "compactor")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    assertThat(reopened.snapshotManager().latestId().getAsLong()).isEqualTo(4);
    assertThat(TestTables.readKeyValues(reopened)).isEqualTo(before);
  }
}
