package dev.lockstep.engine.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.manifest.DataFileMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Universal compaction's pick with trigger 5 and max level 5 (Paimon's defaults): size
 * amplification, then size ratio, then, only with more runs than the trigger, the run count.
 */
class UniversalCompactionTest {

  private final UniversalCompaction picker = new UniversalCompaction(5, 5);

  /** A committed file; a later {@code snapshot} is a newer level-0 run. */
  private static DataFileMeta file(String name, long size, int level, long snapshot) {
    return new DataFileMeta(name, size, 1, null, null, 0, 0, 0, level, 0, snapshot);
  }

  private static List<String> names(Optional<CompactUnit> unit) {
    List<String> names = new ArrayList<>();
    unit.orElseThrow().inputs().forEach(f -> names.add(f.fileName()));
    return names;
  }

  @Test
  void fewerRunsThanTheTriggerCompactNothing() {
    List<DataFileMeta> files =
        List.of(file("a", 100, 0, 4), file("b", 100, 0, 3), file("max", 10_000, 5, 1));
    assertThat(picker.pick(files)).isEmpty();
  }

  @Test
  void exactlyTheTriggerWithASmallerNewestRunWaitsForTheNextRun() {
    // Newest first: a (90) < b (100), so the size ratio picks nothing; the run count needs more
    // runs than the trigger. Before, the newest two were picked and, reaching through level 0,
    // every run: a full compaction of the bucket.
    List<DataFileMeta> files =
        List.of(
            file("a", 90, 0, 4),
            file("b", 100, 0, 3),
            file("c", 100, 0, 2),
            file("d", 100, 0, 1),
            file("max", 10_000, 5, 0));
    assertThat(picker.pick(files)).isEmpty();
  }

  @Test
  void moreRunsThanTheTriggerMergeTheLevelZeroFilesAboveTheMaxLevel() {
    List<DataFileMeta> files =
        List.of(
            file("a", 90, 0, 5),
            file("b", 100, 0, 4),
            file("c", 100, 0, 3),
            file("d", 100, 0, 2),
            file("e", 100, 0, 1),
            file("max", 10_000, 5, 0));
    Optional<CompactUnit> unit = picker.pick(files);
    // runs - trigger + 1 = 2 newest, grown by the size ratio over c, d and e, not into max.
    assertThat(names(unit)).containsExactly("a", "b", "c", "d", "e");
    assertThat(unit.get().outputLevel()).isEqualTo(4);
  }

  @Test
  void theSizeRatioPicksAtTheTrigger() {
    List<DataFileMeta> files =
        List.of(
            file("a", 100, 0, 4),
            file("b", 100, 0, 3),
            file("c", 150, 0, 2),
            file("d", 100, 0, 1),
            file("max", 10_000, 5, 0));
    Optional<CompactUnit> unit = picker.pick(files);
    assertThat(names(unit)).containsExactly("a", "b", "c", "d");
    assertThat(unit.get().outputLevel()).isEqualTo(4);
  }

  @Test
  void sizeAmplificationCompactsEverything() {
    List<DataFileMeta> files =
        List.of(
            file("a", 90, 0, 4),
            file("b", 100, 0, 3),
            file("c", 100, 0, 2),
            file("d", 100, 0, 1),
            file("max", 150, 5, 0));
    Optional<CompactUnit> unit = picker.pick(files);
    assertThat(names(unit)).containsExactly("a", "b", "c", "d", "max");
    assertThat(unit.get().outputLevel()).isEqualTo(5);
  }

  @Test
  void aRunCountPickThatWouldEndOnLevelZeroReachesTheNextLeveledRun() {
    // Seven runs: runs - trigger + 1 = 3 newest; the size ratio stops at f (1000); the level
    // below f is not a level, so the pick goes on to the leveled run after the level-0 files.
    List<DataFileMeta> files =
        List.of(
            file("a", 10, 0, 6),
            file("b", 100, 0, 5),
            file("c", 100, 0, 4),
            file("f", 1000, 0, 3),
            file("g", 1000, 0, 2),
            file("l3", 5000, 3, 0),
            file("max", 100_000, 5, 0));
    Optional<CompactUnit> unit = picker.pick(files);
    assertThat(names(unit)).containsExactly("a", "b", "c", "f", "g", "l3");
    assertThat(unit.get().outputLevel()).isEqualTo(3);
  }
}
