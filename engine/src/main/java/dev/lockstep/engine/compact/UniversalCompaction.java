package dev.lockstep.engine.compact;

import dev.lockstep.engine.manifest.DataFileMeta;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Universal compaction over the sorted runs of one bucket (as RocksDB and Apache Paimon do).
 *
 * <p>Sorted runs, newest first: every level-0 file is one run (newer commit first), then each
 * non-empty level 1..max is one run. When there are at least {@code
 * num-sorted-run.compaction-trigger} runs, pick a prefix of them:
 *
 * <ol>
 *   <li>Size amplification: when all runs but the oldest are larger than 200% of the oldest, pick
 *       all (full compaction, to the max level).
 *   <li>Size ratio: grow the prefix while the next run is no larger than the prefix so far (+1%).
 *   <li>Otherwise, only when there are more runs than the trigger, the newest {@code runs - trigger
 *       + 1} runs, grown by the size ratio as above; with exactly {@code trigger} runs, nothing
 *       (the next run comes first). Paimon's rule: picking the newest two of {@code trigger} runs
 *       when the newest is the smaller one would reach the first leveled run through level 0, and
 *       with only level-0 files and the max level that is a full compaction of the bucket, where
 *       one more flush later the level-0 files alone merge to the level above it.
 * </ol>
 *
 * The output goes to the level just below the first unpicked run's level (or to the max level when
 * every run is picked); when that would be level 0 the next leveled run is picked too and the
 * output goes to its level. Because every non-empty level below the output level is picked, the
 * output never overlaps another file of its level, in a consistent view.
 */
public final class UniversalCompaction {

  static final int MAX_SIZE_AMPLIFICATION_PERCENT = 200;
  static final int SIZE_RATIO_PERCENT = 1;

  private final int trigger;
  private final int maxLevel;

  public UniversalCompaction(int trigger, int maxLevel) {
    this.trigger = trigger;
    this.maxLevel = maxLevel;
  }

  /** The sorted runs of {@code files}, newest first. */
  public static List<List<DataFileMeta>> sortedRuns(List<DataFileMeta> files) {
    List<List<DataFileMeta>> runs = new ArrayList<>();
    List<DataFileMeta> level0 = new ArrayList<>();
    TreeMap<Integer, List<DataFileMeta>> levels = new TreeMap<>();
    for (DataFileMeta f : files) {
      if (f.level() == 0) {
        level0.add(f);
      } else {
        levels.computeIfAbsent(f.level(), l -> new ArrayList<>()).add(f);
      }
    }
    level0.sort(
        Comparator.comparingLong(DataFileMeta::commitSnapshot)
            .thenComparingLong(DataFileMeta::maxSequence)
            .reversed());
    level0.forEach(f -> runs.add(List.of(f)));
    levels.values().forEach(runs::add);
    return runs;
  }

  /** What to compact among {@code files} (all committed, one bucket), or empty. */
  public Optional<CompactUnit> pick(List<DataFileMeta> files) {
    List<List<DataFileMeta>> runs = sortedRuns(files);
    if (runs.size() < Math.max(trigger, 2)) {
      return Optional.empty();
    }
    int count = choose(runs);
    return count == 0 ? Optional.empty() : Optional.of(unit(runs, count));
  }

  /** Everything into one run at the max level, or empty when that is already so. */
  public Optional<CompactUnit> pickFull(List<DataFileMeta> files) {
    List<List<DataFileMeta>> runs = sortedRuns(files);
    if (runs.isEmpty() || (runs.size() == 1 && runs.get(0).get(0).level() == maxLevel)) {
      return Optional.empty();
    }
    return Optional.of(unit(runs, runs.size()));
  }

  /** How many of the newest runs to compact; 0 for none. */
  private int choose(List<List<DataFileMeta>> runs) {
    long newer = 0;
    for (int i = 0; i < runs.size() - 1; i++) {
      newer += size(runs.get(i));
    }
    long oldest = size(runs.get(runs.size() - 1));
    if (newer * 100 > oldest * MAX_SIZE_AMPLIFICATION_PERCENT) {
      return runs.size();
    }
    int count = growBySizeRatio(runs, 1);
    if (count >= 2) {
      return count;
    }
    if (runs.size() > Math.max(trigger, 2)) {
      return growBySizeRatio(runs, runs.size() - Math.max(trigger, 2) + 1);
    }
    return 0;
  }

  /** The newest {@code count} runs, and the next ones while each is no larger than those (+1%). */
  private static int growBySizeRatio(List<List<DataFileMeta>> runs, int count) {
    long candidate = 0;
    for (int i = 0; i < count; i++) {
      candidate += size(runs.get(i));
    }
    while (count < runs.size()
        && candidate * (100 + SIZE_RATIO_PERCENT) / 100 >= size(runs.get(count))) {
      candidate += size(runs.get(count));
      count++;
    }
    return count;
  }

  private CompactUnit unit(List<List<DataFileMeta>> runs, int count) {
    int outputLevel;
    if (count >= runs.size()) {
      count = runs.size();
      outputLevel = maxLevel;
    } else {
      outputLevel = Math.max(0, runs.get(count).get(0).level() - 1);
      while (outputLevel == 0 && count < runs.size()) {
        int level = runs.get(count).get(0).level();
        count++;
        if (level != 0) {
          outputLevel = level;
        }
      }
      if (outputLevel == 0) {
        outputLevel = maxLevel;
      }
    }
    List<DataFileMeta> inputs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      inputs.addAll(runs.get(i));
    }
    return new CompactUnit(inputs, outputLevel);
  }

  private static long size(List<DataFileMeta> run) {
    long size = 0;
    for (DataFileMeta f : run) {
      size += f.fileSize();
    }
    return size;
  }
}
