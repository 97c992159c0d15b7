package dev.lockstep.engine.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.manifest.DataFileMeta;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The picking rule of append-table compaction ({@link AppendCompaction}). */
class AppendCompactionTest {

  private static final long TARGET = 1000;

  /** A committed file of {@code rows} rows with sequence numbers from {@code firstSeq}. */
  private static DataFileMeta file(
      String name, long size, long snapshot, long firstSeq, long rows) {
    return new DataFileMeta(
        name, size, rows, null, null, firstSeq, firstSeq + rows - 1, 0, 0, 0, snapshot);
  }

  /** One writer's files, one per commit 1..n, each of {@code size} bytes and 10 rows. */
  private static List<DataFileMeta> oneWriter(int n, long size) {
    List<DataFileMeta> files = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      files.add(file(String.format("f%02d", i), size, i + 1, i * 10L, 10));
    }
    return files;
  }

  private static List<String> names(List<DataFileMeta> run) {
    return run.stream().map(DataFileMeta::fileName).toList();
  }

  @Test
  void aRunStartsAtMinFilesInRowOrderAndGrowsWithSmallFiles() {
    List<DataFileMeta> files = oneWriter(12, 100);
    List<DataFileMeta> shuffled = new ArrayList<>(files);
    Collections.shuffle(shuffled, new Random(7));
    List<List<DataFileMeta>> runs = new AppendCompaction(5, 50, TARGET).pick(shuffled);
    // 5 files reach min-file-num, 4 more keep the run below the target (900 bytes), the 10th
    // would reach it; the 3 left are fewer than min-file-num.
    assertThat(runs).hasSize(1);
    assertThat(runs.get(0)).containsExactlyElementsOf(files.subList(0, 9));
    assertThat(new AppendCompaction(5, 50, TARGET).pick(files.subList(0, 4))).isEmpty();
  }

  @Test
  void maxFileNumCapsARunAndTheRestFormsTheNext() {
    List<List<DataFileMeta>> runs = new AppendCompaction(5, 50, TARGET).pick(oneWriter(60, 1));
    assertThat(runs).hasSize(2);
    assertThat(runs.get(0)).hasSize(50);
    assertThat(runs.get(1)).hasSize(10);
    assertThat(runs.get(1).get(0).fileName()).isEqualTo("f50");
  }

  @Test
  void largeFilesAreLeftAloneAndARunNeverJumpsOverOne() {
    List<DataFileMeta> files = oneWriter(8, 100);
    // f02 is large: the two small files before it never join a run with those after it.
    files.set(2, file("f02", 5000, 3, 20, 10));
    List<List<DataFileMeta>> runs = new AppendCompaction(5, 50, TARGET).pick(files);
    assertThat(runs).singleElement();
    assertThat(names(runs.get(0))).containsExactly("f03", "f04", "f05", "f06", "f07");
    assertThat(new AppendCompaction(5, 50, TARGET).pick(files.subList(0, 7)))
        .as("f00, f01 and the four small files after f02")
        .isEmpty();
  }

  @Test
  void filesOfSeveralWritersInOneCommitAreSplitOnlyWhereTheOrderStays() {
    // Spark-style: three tasks each wrote one file of commit 1, all with sequence numbers 0..9.
    List<DataFileMeta> files =
        List.of(
            file("a", 100, 1, 0, 10),
            file("b", 100, 1, 0, 10),
            file("c", 100, 1, 0, 10),
            file("d", 100, 2, 0, 10));
    // Runs of two files would give their outputs sequence numbers 0..19 in commit 1, where
    // another file of commit 1 starts too: its place relative to the output would be lost.
    assertThat(new AppendCompaction(2, 2, TARGET).pick(files)).isEmpty();
    assertThat(new AppendCompaction(2, 3, TARGET).pick(files))
        .singleElement()
        .satisfies(run -> assertThat(names(run)).containsExactly("a", "b", "c"));

    // Two writers interleaved in one commit: a1 0..9, b1 0..9, a2 10..19, b2 10..19.
    List<DataFileMeta> interleaved =
        List.of(
            file("a1", 100, 1, 0, 10),
            file("b1", 100, 1, 0, 10),
            file("a2", 100, 1, 10, 10),
            file("b2", 100, 1, 10, 10));
    assertThat(new AppendCompaction(2, 2, TARGET).pick(interleaved))
        .singleElement()
        .satisfies(run -> assertThat(names(run)).containsExactly("a2", "b2"));
  }

  @Test
  void fullSkipsLeadingLargeFilesAndNeedsMoreSmallThanLarge() {
    List<DataFileMeta> files = oneWriter(6, 100);
    files.set(0, file("f00", 2000, 1, 0, 10));
    files.set(1, file("f01", 2000, 2, 10, 10));
    files.set(3, file("f03", 2000, 4, 30, 10));
    AppendCompaction picker = new AppendCompaction(5, 50, TARGET);
    assertThat(picker.pickFull(files))
        .singleElement()
        .satisfies(run -> assertThat(names(run)).containsExactly("f02", "f03", "f04", "f05"));
    // Two small files, two large ones after the leading large ones: nothing worth rewriting.
    files.set(4, file("f04", 2000, 5, 40, 10));
    assertThat(picker.pickFull(files)).isEmpty();
    assertThat(picker.pickFull(oneWriter(2, 100))).as("fewer than 3 files").isEmpty();
    assertThat(picker.pickFull(List.of(file("big", 5000, 1, 0, 10)))).isEmpty();
  }

  @Test
  void fullRunTakesInTheFileItsFirstFileSharesItsPlaceWith() {
    // big and small were written by two tasks into commit 1 with the same sequence numbers.
    List<DataFileMeta> files =
        List.of(
            file("a-big", 5000, 1, 0, 10),
            file("b-small", 100, 1, 0, 10),
            file("c", 100, 2, 0, 10),
            file("d", 100, 3, 0, 10));
    assertThat(new AppendCompaction(5, 50, TARGET).pickFull(files))
        .singleElement()
        .satisfies(run -> assertThat(names(run)).containsExactly("a-big", "b-small", "c", "d"));
  }
}
