package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.maintenance.OrphanReport;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An append writer that closes while its inline compaction is queued, running or just finished
 * abandons it (its result would never be committed): whatever the moment, the close leaves no data
 * file that no snapshot names, and the table's rows are exactly the committed ones, in order. The
 * rounds close right after the refresh that starts a compaction, after a little more writing, and
 * after a commit that may hand one out, so the close meets the task at different points.
 */
class AppendCloseAbandonsCompactionTest {

  @TempDir Path dir;

  @Test
  void closingWithACompactionInFlightLeavesNoUnreferencedFile() throws Exception {
    FileStoreTable table =
        TestTables.appendTable(
            dir, Map.of("compaction.min.file-num", "2", "file.format", "parquet"));
    List<String> committed = new ArrayList<>();
    long identifier = 0;
    long n = 0;
    for (int round = 0; round < 12; round++) {
      String user = "w" + round;
      TableCommit commit = table.newCommit(user);
      try (TableWrite write = table.newWrite(user)) {
        for (int c = 0; c < 3; c++) {
          for (int i = 0; i < 2000; i++) {
            write.write(GenericRow.of(user, n));
            committed.add(user + ":" + n);
            n++;
          }
          commit.commit(++identifier, write.prepareCommit());
        }
        // The next write refreshes the writer, which starts a compaction of the committed files;
        // then the writer closes at a point that depends on the round.
        int more = round % 3 == 0 ? 1 : round % 3 == 1 ? 1500 : 0;
        for (int i = 0; i < more; i++) {
          write.write(GenericRow.of(user, -1L));
        }
      }
      OrphanReport orphans = new OrphanFilesCleaner(table, Duration.ZERO, true).clean();
      assertThat(orphans.removed()).as("round %d", round).isEmpty();
      List<String> rows = AppendCompactionTableTest.rows(table);
      List<String> sorted = new ArrayList<>(rows);
      sorted.sort(null);
      List<String> expected = new ArrayList<>(committed);
      expected.sort(null);
      assertThat(sorted.equals(expected))
          .as("round %d: the committed rows, once each", round)
          .isTrue();
      // One bucket: each writer's rows in the order it wrote them, whatever the compactions did.
      java.util.Map<String, Long> last = new java.util.HashMap<>();
      for (String row : rows) {
        String[] parts = row.split(":");
        Long previous = last.put(parts[0], Long.parseLong(parts[1]));
        if (previous != null && previous >= Long.parseLong(parts[1])) {
          throw new AssertionError(row + " after " + parts[0] + ":" + previous);
        }
      }
    }
  }
}
