package dev.lockstep.engine.deletionvectors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deletion vectors of a table with {@code sequence.field} (commit.DeletionVectorMaintainer.wins):
 * the row with the higher sequence field is the merge winner even when it was committed first, so
 * the vectors delete the later commit's row with the lower field; with equal fields, the later
 * commit wins. The read with vectors returns exactly what the merge read returns. Real local table.
 */
class DeletionVectorSequenceFieldTest {

  @TempDir java.nio.file.Path dir;

  private static void commit(FileStoreTable table, long identifier, int k, String v, long ts)
      throws IOException {
    try (TableWrite write = table.newWrite("w")) {
      write.write(GenericRow.of(k, v, ts));
      table.newCommit("w").commit(identifier, write.prepareCommit());
    }
  }

  @Test
  void theHigherSequenceFieldWinsWhateverTheCommitOrder() throws Exception {
    FileStoreTable table =
        DeletionVectorTables.create(
            dir,
            "seq",
            // No compaction: it would rewrite the superseded rows away at a moment of its own, and
            // the count of rows the vectors delete below would depend on it.
            Map.of(
                "deletion-vectors.enabled",
                "true",
                "sequence.field",
                "ts",
                "num-sorted-run.compaction-trigger",
                "100"));
    commit(table, 1, 1, "newer", 10);
    commit(table, 2, 1, "older", 5); // committed later, lower field: loses
    commit(table, 3, 2, "first", 7);
    commit(table, 4, 2, "second", 7); // equal fields: the later commit wins
    commit(table, 5, 3, "low", 1);
    commit(table, 6, 3, "high", 2); // committed later, higher field: wins

    Map<Integer, GenericRow> read = DeletionVectorTables.read(table, null);
    assertThat(read.get(1).get(1)).isEqualTo("newer");
    assertThat(read.get(2).get(1)).isEqualTo("second");
    assertThat(read.get(3).get(1)).isEqualTo("high");
    assertThat(read).isEqualTo(DeletionVectorTables.mergeRead(table, null));
    assertThat(
            DeletionVectorTables.assertCovered(
                table, table.snapshotManager().latest().orElseThrow()))
        .as("rows the vectors delete")
        .isEqualTo(3);
  }
}
