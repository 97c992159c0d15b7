package dev.lockstep.engine.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The later questions of {@link CommittedIdentifiers} read only the snapshots committed since the
 * last answer, newest first down the history: a commit of the same user that another process (a
 * twin, a restarted writer's predecessor) landed meanwhile is found there, whether it is the newest
 * snapshot or the oldest of the new ones. Answering "no" would let the caller commit the same
 * messages a second time (every row twice). Real local table; the other process is another table
 * object.
 */
class CommittedIdentifiersForwardTest {

  @TempDir java.nio.file.Path dir;

  private FileStoreTable writer;

  private void commit(String user, long identifier) throws IOException {
    try (TableWrite write = writer.newWrite(user)) {
      write.write(GenericRow.of(user, identifier));
      writer.newCommit(user).commit(identifier, write.prepareCommit());
    }
  }

  @Test
  void commitsOfTheUserLandedSinceTheLastAnswerAreFound() throws Exception {
    writer = TestTables.appendTable(dir, Map.of("snapshot.num-retained.min", "100"));
    commit("u", 1);
    FileStoreTable asker = TestTables.catalog(dir).getTable(new Identifier("db", "log"));
    CommittedIdentifiers committed = new CommittedIdentifiers(asker.snapshotManager(), "u");
    assertThat(committed.contains(1)).as("the first question scans backwards").isTrue();

    // Since the answer: another user's commit, then ours as the newest snapshot.
    commit("other", 5);
    commit("u", 2);
    assertThat(committed.contains(2)).as("ours, the newest snapshot").isTrue();

    // Then ours as the oldest of the new snapshots, another user's above it.
    commit("u", 3);
    commit("other", 6);
    assertThat(committed.contains(3)).as("ours, the oldest new snapshot").isTrue();
    assertThat(committed.contains(4)).isFalse();
    assertThat(asker.snapshotManager().log().listIds()).isEqualTo(List.of(1L, 2L, 3L, 4L, 5L));
  }
}
