package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming sink's rhythm: the writer hands out a batch (with a finished compaction), goes on
 * writing the next batch at once, and the batch is committed only later (Flink commits when the
 * checkpoint completes). A compaction handed out and not committed yet must not be started again on
 * the same inputs from the not-yet-moved view: that work would only be dropped by the committer as
 * a file conflict. The data stays exact either way.
 */
class PipelinedCommitCompactionTest {

  @TempDir Path dir;

  @Test
  void aHandedOutCompactionIsNotRedoneBeforeItsCommit() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir, Map.of("bucket", "1", "num-sorted-run.compaction-trigger", "3"));
    TreeMap<Integer, String> model = new TreeMap<>();
    int dropped = 0;
    int compactions = 0;
    try (TableWrite write = table.newWrite("u")) {
      List<CommitMessage> previous = null;
      long previousId = 0;
      for (int batch = 1; batch <= 40; batch++) {
        for (int i = 0; i < 200; i++) {
          int k = (batch * 37 + i * 11) % 500;
          String v = "b" + batch + "-" + i;
          write.write(GenericRow.of(k, v));
          model.put(k, v);
          if (i == 0 && previous != null) {
            // The previous batch commits while this one is being written.
            CommitResult r = table.newCommit("u").commit(previousId, previous);
            dropped += r.droppedCompactions().size();
            previous = null;
          }
        }
        // Let a background compaction finish, so that each batch can hand one out.
        Thread.sleep(30);
        previous = write.prepareCommit();
        previousId = batch;
        compactions += (int) previous.stream().filter(m -> !m.compactAfter().isEmpty()).count();
      }
      CommitResult r = table.newCommit("u").commit(previousId, previous);
      dropped += r.droppedCompactions().size();
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(model);
    assertThat(compactions).isPositive();
    assertThat(dropped).as("compactions dropped as conflicts, of %d", compactions).isZero();
  }
}
