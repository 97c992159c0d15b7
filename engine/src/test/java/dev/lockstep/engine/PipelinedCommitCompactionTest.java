package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming sink's rhythm: the writer hands out a batch (with a finished compaction), goes on
 * writing the next batch at once, and the batch is committed only later (Flink commits when the
 * checkpoint completes). A compaction handed out and not committed yet must not be started again on
 * the same inputs from the not-yet-moved view: that work would only be dropped by the committer as
 * a file conflict. The data stays exact either way.
 *
 * <p>Instead, the next compaction is picked from the bucket's files as they will be once the
 * handed-out one lands, so a bucket compacts in every batch. With {@code
 * num-sorted-run.stop-trigger} equal to the trigger (2), every flush of a batch waits for the
 * compaction the batch's refresh started: each batch hands out the compaction picked at its start,
 * whatever the machine's speed.
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

  /** Trigger 2, stop trigger 2: a flush waits for the running compaction (class javadoc). */
  private static final Map<String, String> EAGER =
      Map.of(
          "bucket", "1",
          "num-sorted-run.compaction-trigger", "2",
          "num-sorted-run.stop-trigger", "2");

  /**
   * Writes {@code flushes} level-0 files of {@code rows} rows each with keys from {@code first},
   * values tagged {@code tag}, into {@code write} and {@code model}; the last one stays in the
   * buffer for {@code prepareCommit} to flush.
   */
  private static void writeFiles(
      TableWrite write, Map<Integer, String> model, String tag, int first, int rows, int flushes)
      throws IOException {
    for (int f = 0; f < flushes; f++) {
      for (int i = 0; i < rows; i++) {
        int k = first + (i * 7 + f * 3) % rows;
        String v = tag + "-" + f + "-" + i;
        write.write(GenericRow.of(k, v));
        model.put(k, v);
      }
      if (f + 1 < flushes) {
        write.flush();
      }
    }
  }

  private static boolean compacts(List<CommitMessage> messages) {
    return messages.stream().anyMatch(m -> !m.compactBefore().isEmpty());
  }

  private static Set<String> names(List<DataFileMeta> files) {
    Set<String> names = new HashSet<>();
    files.forEach(f -> names.add(f.fileName()));
    return names;
  }

  private static List<DataFileMeta> compactAfter(List<CommitMessage> messages) {
    List<DataFileMeta> files = new ArrayList<>();
    messages.forEach(m -> files.addAll(m.compactAfter()));
    return files;
  }

  private static List<DataFileMeta> compactBefore(List<CommitMessage> messages) {
    List<DataFileMeta> files = new ArrayList<>();
    messages.forEach(m -> files.addAll(m.compactBefore()));
    return files;
  }

  private boolean exists(FileStoreTable table, DataFileMeta file) throws IOException {
    return table.fileIO().exists(table.bucketPath("", 0).child(file.fileName()));
  }

  /**
   * Batch b is committed while batch b + 1 is written, after its refresh. Before, a bucket picked
   * its next compaction only once the view showed the handed-out one committed: every other batch.
   */
  @Test
  void aPipelinedWriterCompactsInEveryBatch() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, EAGER);
    TreeMap<Integer, String> model = new TreeMap<>();
    List<Integer> withoutCompaction = new ArrayList<>();
    int dropped = 0;
    try (TableWrite write = table.newWrite("u");
        TableCommit commit = table.newCommit("u")) {
      List<CommitMessage> previous = null;
      for (int batch = 1; batch <= 12; batch++) {
        // The first write refreshes the view and starts the batch's compaction.
        write.write(GenericRow.of(1_000_000, "first-" + batch));
        model.put(1_000_000, "first-" + batch);
        if (previous != null) {
          dropped += commit.commit(batch - 1, previous).droppedCompactions().size();
        }
        writeFiles(write, model, "b" + batch, (batch % 4) * 50, 100, 3);
        previous = write.prepareCommit();
        // Batch 1's files are committed during batch 2, after its refresh: batch 3 is the first
        // whose view shows files.
        if (batch >= 3 && !compacts(previous)) {
          withoutCompaction.add(batch);
        }
      }
      dropped += commit.commit(12, previous).droppedCompactions().size();
    }
    assertThat(withoutCompaction).as("batches that handed out no compaction").isEmpty();
    assertThat(dropped).as("compactions dropped as conflicts").isZero();
    assertThat(TestTables.readKeyValues(table)).isEqualTo(model);
  }

  @Test
  void aWriteOnlyPipelinedWriterNeverCompacts() throws Exception {
    Map<String, String> options = new java.util.HashMap<>(EAGER);
    options.put("write-only", "true");
    FileStoreTable table = TestTables.keyValueTable(dir, options);
    TreeMap<Integer, String> model = new TreeMap<>();
    try (TableWrite write = table.newWrite("u");
        TableCommit commit = table.newCommit("u")) {
      List<CommitMessage> previous = null;
      for (int batch = 1; batch <= 6; batch++) {
        write.write(GenericRow.of(1_000_000, "first-" + batch));
        model.put(1_000_000, "first-" + batch);
        if (previous != null) {
          commit.commit(batch - 1, previous);
        }
        writeFiles(write, model, "b" + batch, 0, 100, 3);
        previous = write.prepareCommit();
        assertThat(compacts(previous)).as("batch %d hands out a compaction", batch).isFalse();
      }
      commit.commit(6, previous);
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(model);
  }

  /**
   * Compaction C1 is handed out with batch B; batch C's compaction C2 is picked from the files as
   * they will be once C1 lands, and takes C1's output. Another writer's compaction of C1's inputs
   * lands first: the committer drops C1, and then C2, which names C1's output, and deletes both
   * outputs. No row is lost or doubled, and the writer compacts again from the view.
   */
  @Test
  void aCompactionBuiltOnADroppedOneIsDroppedToo() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, EAGER);
    TreeMap<Integer, String> model = new TreeMap<>();
    try (TableWrite write = table.newWrite("u");
        TableCommit commit = table.newCommit("u");
        TableWrite other = table.newWrite("x");
        TableWrite appender = table.copyWithOptions(Map.of("write-only", "true")).newWrite("y")) {
      // Batch A: three small files, committed at once.
      writeFiles(write, model, "a", 0, 20, 3);
      commit.commit(1, write.prepareCommit());

      // Batch B: its refresh picks C1 (A's three files); another writer picks the same.
      TreeMap<Integer, String> modelB = new TreeMap<>();
      write.write(GenericRow.of(1_000_000, "first-b"));
      modelB.put(1_000_000, "first-b");
      other.compact(false);
      List<CommitMessage> x = other.prepareCommit();
      assertThat(compacts(x)).isTrue();
      writeFiles(write, modelB, "b", 0, 20, 3);
      List<CommitMessage> b = write.prepareCommit();
      assertThat(names(compactBefore(b))).isEqualTo(names(compactBefore(x)));

      // A write-only writer commits three large files: C2 will take them and C1's output.
      TreeMap<Integer, String> modelY = new TreeMap<>();
      writeFiles(appender, modelY, "y", 0, 400, 3);
      table.newCommit("y").commit(1, appender.prepareCommit());

      // Batch C: its refresh still shows C1's inputs (B is not committed): C2 is planned on C1.
      TreeMap<Integer, String> modelC = new TreeMap<>();
      write.write(GenericRow.of(1_000_001, "first-c"));
      modelC.put(1_000_001, "first-c");
      writeFiles(write, modelC, "c", 10, 20, 3);
      List<CommitMessage> c = write.prepareCommit();
      List<DataFileMeta> c1Output = compactAfter(b);
      List<DataFileMeta> c2Output = compactAfter(c);
      assertThat(c1Output).isNotEmpty();
      assertThat(names(compactBefore(c))).as("C2 takes C1's output").containsAll(names(c1Output));

      // The other writer's compaction lands first; then B and C.
      assertThat(table.newCommit("x").commit(1, x).droppedCompactions()).isEmpty();
      model.putAll(modelY);
      CommitResult rb = commit.commit(2, b);
      model.putAll(modelB);
      CommitResult rc = commit.commit(3, c);
      model.putAll(modelC);
      assertThat(rb.droppedCompactions()).hasSize(1);
      assertThat(rc.droppedCompactions()).hasSize(1);
      for (DataFileMeta f : c1Output) {
        assertThat(exists(table, f)).as("C1's output %s", f.fileName()).isFalse();
      }
      for (DataFileMeta f : c2Output) {
        assertThat(exists(table, f)).as("C2's output %s", f.fileName()).isFalse();
      }
      for (CommitMessage m : b) {
        for (DataFileMeta f : m.newFiles()) {
          assertThat(exists(table, f)).as("B's new file %s", f.fileName()).isTrue();
        }
      }
      assertThat(TestTables.readKeyValues(table)).isEqualTo(model);

      // The writer learns of both drops at its next refresh and compacts from the view again.
      writeFiles(write, model, "d", 30, 20, 3);
      List<CommitMessage> d = write.prepareCommit();
      assertThat(compacts(d)).isTrue();
      assertThat(commit.commit(4, d).droppedCompactions()).isEmpty();
      assertThat(TestTables.readKeyValues(table)).isEqualTo(model);
    }
  }

  /**
   * Batches B and C, with C1 and C2 built on C1's output, are aborted (never committed): both
   * outputs are deleted, and the writer goes on: no row of the committed batches is lost or
   * doubled, and its compactions land again.
   */
  @Test
  void compactionsOfAbortedBatchesAreDeletedAndWritingGoesOn() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, EAGER);
    TreeMap<Integer, String> model = new TreeMap<>();
    try (TableWrite write = table.newWrite("u");
        TableCommit commit = table.newCommit("u");
        TableWrite appender = table.copyWithOptions(Map.of("write-only", "true")).newWrite("y")) {
      writeFiles(write, model, "a", 0, 20, 3);
      commit.commit(1, write.prepareCommit());
      writeFiles(write, model, "a2", 0, 20, 3);
      commit.commit(2, write.prepareCommit());

      // B hands out C1; another writer's files land; C is planned on C1 and takes its output.
      writeFiles(write, new TreeMap<>(), "b", 0, 20, 3);
      List<CommitMessage> b = write.prepareCommit();
      writeFiles(appender, model, "y", 0, 20, 3);
      table.newCommit("y").commit(1, appender.prepareCommit());
      writeFiles(write, new TreeMap<>(), "c", 0, 20, 3);
      List<CommitMessage> c = write.prepareCommit();
      assertThat(compactAfter(b)).isNotEmpty();
      assertThat(names(compactBefore(c))).containsAll(names(compactAfter(b)));
      commit.abort(3, b);
      commit.abort(4, c);
      for (DataFileMeta f : compactAfter(b)) {
        assertThat(exists(table, f)).isFalse();
      }
      for (DataFileMeta f : compactAfter(c)) {
        assertThat(exists(table, f)).isFalse();
      }
      assertThat(TestTables.readKeyValues(table)).isEqualTo(model);

      int landed = 0;
      for (int batch = 5; batch <= 12; batch++) {
        writeFiles(write, model, "e" + batch, (batch % 3) * 10, 20, 3);
        CommitResult r = commit.commit(batch, write.prepareCommit());
        if (r.compactSnapshotId() > 0) {
          landed++;
        }
        assertThat(r.droppedCompactions()).isEmpty();
        assertThat(TestTables.readKeyValues(table)).isEqualTo(model);
      }
      assertThat(landed).as("compactions committed after the aborted batches").isPositive();
    }
  }
}
