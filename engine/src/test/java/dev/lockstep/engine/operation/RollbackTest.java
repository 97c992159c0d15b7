package dev.lockstep.engine.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.maintenance.TagManager;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rollback (issue 25): the contents of an earlier snapshot as a new OVERWRITE, history kept. */
class RollbackTest {

  @TempDir Path dir;

  private static void commit(
      FileStoreTable table, String user, long identifier, int from, int to, String value)
      throws Exception {
    try (TableWrite write = table.newWrite(user)) {
      for (int k = from; k < to; k++) {
        write.write(GenericRow.of(k, value));
      }
      table.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  private static Map<Integer, String> read(FileStoreTable table, long snapshot) throws Exception {
    Map<Integer, String> rows = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().withSnapshot(snapshot).plan())) {
      rows.put((Integer) row.get(0), (String) row.get(1));
    }
    return rows;
  }

  @Test
  void restoresAnEarlierSnapshotAndKeepsTheHistory() throws Exception {
    TestTables.keyValueTable(dir, Map.of("bucket", "2"));
    FileStoreTable table = TestTables.catalog(dir).getTable(Identifier.parse("db.kv"));
    commit(table, "w", 1, 0, 10, "a");
    commit(table, "w", 2, 5, 20, "b");
    Map<Integer, String> atTwo = read(table, 2);
    commit(table, "w", 3, 0, 30, "c");
    Map<Integer, String> atThree = read(table, 3);

    Rollback rollback = new Rollback(table);
    Rollback.Result dry = rollback.dryRun(rollback.snapshot(2));
    assertThat(dry.rows()).isEqualTo(atTwo.size());
    assertThat(table.snapshotManager().latestId().getAsLong()).isEqualTo(3);

    Rollback.Result result = rollback.run(rollback.snapshot(2));
    assertThat(result.previousSnapshotId()).isEqualTo(3);
    assertThat(result.restoredSnapshotId()).isEqualTo(2);
    assertThat(result.rows()).isEqualTo(atTwo.size());
    assertThat(table.snapshotManager().get(result.currentSnapshotId()).commitKind())
        .isEqualTo(CommitKind.OVERWRITE);
    assertThat(TestTables.readKeyValues(table)).isEqualTo(atTwo);
    assertThat(read(table, 3)).as("history kept").isEqualTo(atThree);

    // Writes after the rollback go on from the restored contents.
    commit(table, "w", 4, 100, 101, "d");
    assertThat(TestTables.readKeyValues(table)).hasSize(atTwo.size() + 1);
  }

  @Test
  void appendTableRowsComeBackOnceAndTagsAndTimesWork() throws Exception {
    TestTables.appendTable(dir, Map.of("snapshot.num-retained.min", "1"));
    FileStoreTable table = TestTables.catalog(dir).getTable(Identifier.parse("db.log"));
    for (int b = 1; b <= 3; b++) {
      try (TableWrite write = table.newWrite("w")) {
        for (long n = 0; n < 5; n++) {
          write.write(GenericRow.of("b" + b, n));
        }
        table.newCommit("w").commit(b, write.prepareCommit());
      }
      Thread.sleep(5);
    }
    Instant afterFirst = Instant.ofEpochMilli(table.snapshotManager().get(1).timeMillis());
    Rollback rollback = new Rollback(table);
    assertThat(rollback.atTime(afterFirst).id()).isEqualTo(1);
    assertThatThrownBy(() -> rollback.atTime(afterFirst.minusSeconds(60)))
        .hasMessageContaining("no retained snapshot");

    new TagManager(table).create("first", 1);
    new SnapshotExpiration(table, new MaintenanceOptions(1, Integer.MAX_VALUE, Duration.ZERO, 100))
        .expire();
    assertThat(table.snapshotManager().log().exists(1)).isFalse();
    assertThatThrownBy(() -> rollback.snapshot(1))
        .hasMessageContaining("snapshot 1")
        .hasMessageContaining("does not exist")
        .hasMessageContaining("by their tag");

    rollback.run(rollback.tag("first"));
    List<GenericRow> rows = table.newRead().readAll(table.newScan().plan());
    assertThat(rows).hasSize(5).allMatch(r -> r.get(0).equals("b1"));
    assertThatThrownBy(() -> rollback.tag("nope"))
        .hasMessageContaining("tag 'nope'")
        .hasMessageContaining("[first]");
  }
}
