package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.snapshot.SkippedDamage;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage an operation met but did not need is recorded with the file and what is wrong, and does
 * not stop it ({@link SkippedDamage}, issue 25); a gap that expiration left is not damage, and the
 * latest snapshot, which every reader needs, is never "skipped".
 */
class SkippedDamageTest {

  @TempDir Path dir;

  /**
   * Snapshots 1 to 3 of an append table; snapshot {@code id} replaced by {@code content} (deleted
   * when null); the table opened again (no cached snapshot).
   */
  private FileStoreTable damaged(long id, byte[] content) throws IOException {
    FileStoreTable table = TestTables.appendTable(dir, Map.of("write-only", "true"));
    for (String user : List.of("a", "b", "c")) {
      commit(table, table.newCommit(user), user);
    }
    java.nio.file.Path file = LocalFileIO.toLocal(table.snapshotManager().log().snapshotPath(id));
    if (content == null) {
      Files.delete(file);
    } else {
      Files.write(file, content);
    }
    return TestTables.catalog(dir).getTable(new Identifier("db", "log"));
  }

  private static void commit(FileStoreTable table, TableCommit commit, String user)
      throws IOException {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(user, 1L));
      commit.commit(1, write.prepareCommit());
    }
  }

  private static List<String> entries(FileStoreTable table) {
    return table.snapshotManager().skippedDamage().entries().stream()
        .map(SkippedDamage.Entry::describe)
        .toList();
  }

  @Test
  void aDamagedSnapshotBelowTheLatestIsRecordedOnceAndStopsNoCommit() throws Exception {
    FileStoreTable table = damaged(2, new byte[0]);
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(3);
    assertThat(entries(table)).singleElement().asString().endsWith("snapshot-2 is empty");

    commit(table, table.newCommit("m").withFreshCommitUser(), "m");
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(4);
    assertThat(entries(table)).hasSize(1);
  }

  @Test
  void aSnapshotMissingFromTheMiddleIsRecordedAsMissing() throws Exception {
    FileStoreTable table = damaged(2, null);
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(3);
    assertThat(entries(table)).singleElement().asString().endsWith("snapshot-2 is missing");
  }

  @Test
  void aGapBelowTheEarliestHintIsExpirationsNotDamage() throws Exception {
    // The EARLIEST hint says the history starts at 3: snapshot 1 is an expired id published
    // again, and 2 expired.
    FileStoreTable table = damaged(2, null);
    table.snapshotManager().log().writeEarliestHint(3);
    table = TestTables.catalog(dir).getTable(new Identifier("db", "log"));
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(3);
    assertThat(table.snapshotManager().earliestId().getAsLong()).isEqualTo(3);
    assertThat(entries(table)).isEmpty();
  }

  @Test
  void theLatestSnapshotIsNeededAndNeverRecorded() throws Exception {
    FileStoreTable table = damaged(3, "{".getBytes(StandardCharsets.UTF_8));
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(3);
    assertThat(entries(table)).isEmpty();
  }
}
