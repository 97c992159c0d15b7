package dev.lockstep.engine.compact;

import dev.lockstep.engine.manifest.DataFileMeta;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * What to compact in one bucket of an append table: runs of small files, consecutive in the
 * bucket's row order, each rewritten into files of {@code target-file-size} (Apache Paimon's
 * bucketed append compaction, adapted to many writers per bucket).
 *
 * <p><b>Row order.</b> The files of an append bucket are read in {@link #ROW_ORDER}: by the
 * snapshot that committed their rows, then by the writer's sequence number of their first row (then
 * by the last one and the name, so that the order is total). Files of one writer in one commit have
 * disjoint, growing sequence ranges, so a bucket reads as its commits in commit order, each
 * writer's rows in write order. A compaction of a run [f_i .. f_j] writes its rows in that order,
 * numbered from f_i's first sequence number on, into files that keep f_i's commit snapshot: its
 * outputs take exactly the place of the run, so reads return the same rows in the same order before
 * and after it.
 *
 * <p>That needs the outputs' sequence range {@code [first, first + rows - 1]} of f_i's commit to be
 * free of every other file of that commit: a run is picked only then ({@link #keepsOrder}). It
 * always is for one writer per bucket and commit (its files' ranges are dense and disjoint); where
 * several writers wrote one bucket in one commit (Spark tasks), a run starts and ends only where
 * those files' ranges do not overlap.
 *
 * <p><b>Minor pick</b> ({@link #pick}), Paimon's window: walk the files in row order, adding each
 * to a window; once the window holds {@code compaction.min.file-num} files it is a run, grown by
 * the next files while the run stays below {@code target-file-size} and under {@code
 * compaction.max.file-num} files; while it holds fewer files but already reaches {@code
 * target-file-size}, its first file leaves it (large files are left alone). After a run the window
 * starts empty after it, so one pick may return several disjoint runs.
 *
 * <p><b>Full pick</b> ({@link #pickFull}), Paimon's full compaction: leading files of at least
 * {@code target-file-size} are skipped; the rest, from the first small file to the end, is one run
 * when it has at least {@link #FULL_MIN_FILES} files and more small files than large ones.
 */
public final class AppendCompaction {

  /** The smallest run a full compaction rewrites (Paimon's). */
  static final int FULL_MIN_FILES = 3;

  /** The order in which the rows of an append bucket's files are read. */
  public static final Comparator<DataFileMeta> ROW_ORDER = DataFileMeta.APPEND_ORDER;

  private final int minFiles;
  private final int maxFiles;
  private final long targetSize;

  public AppendCompaction(int minFiles, int maxFiles, long targetSize) {
    this.minFiles = Math.max(2, minFiles);
    this.maxFiles = Math.max(this.minFiles, maxFiles);
    this.targetSize = targetSize;
  }

  /** {@code files} sorted in {@link #ROW_ORDER}. */
  public static List<DataFileMeta> inRowOrder(Collection<DataFileMeta> files) {
    List<DataFileMeta> sorted = new ArrayList<>(files);
    sorted.sort(ROW_ORDER);
    return sorted;
  }

  /** The runs of a minor compaction of one bucket's committed files; empty for none. */
  public List<List<DataFileMeta>> pick(Collection<DataFileMeta> files) {
    List<DataFileMeta> sorted = inRowOrder(files);
    List<List<DataFileMeta>> runs = new ArrayList<>();
    int start = 0;
    long size = 0;
    for (int end = 0; end < sorted.size(); end++) {
      size += sorted.get(end).fileSize();
      if (end - start + 1 >= minFiles) {
        int last = grow(sorted, start, end, size);
        while (last >= end && !keepsOrder(sorted, start, last)) {
          last--;
        }
        if (last >= end) {
          runs.add(List.copyOf(sorted.subList(start, last + 1)));
          start = last + 1;
          end = last;
          size = 0;
          continue;
        }
      } else if (size < targetSize) {
        continue;
      }
      // Slide: the window's first file leaves it (a large file, or a run that would move rows).
      size -= sorted.get(start).fileSize();
      start++;
    }
    return runs;
  }

  /** The last index of a run from {@code start}: {@code end}, grown by small files. */
  private int grow(List<DataFileMeta> sorted, int start, int end, long size) {
    int last = end;
    while (last + 1 < sorted.size()
        && last - start + 1 < maxFiles
        && size + sorted.get(last + 1).fileSize() < targetSize) {
      last++;
      size += sorted.get(last).fileSize();
    }
    return last;
  }

  /** The run of a full compaction of one bucket's committed files; empty for none. */
  public List<List<DataFileMeta>> pickFull(Collection<DataFileMeta> files) {
    List<DataFileMeta> sorted = inRowOrder(files);
    int start = 0;
    while (start < sorted.size() && sorted.get(start).fileSize() >= targetSize) {
      start++;
    }
    if (start == sorted.size()) {
      return List.of();
    }
    // A file before the run that shares its first file's place in the row order joins it.
    while (start > 0 && !keepsOrder(sorted, start, sorted.size() - 1)) {
      start--;
    }
    int small = 0;
    for (int i = start; i < sorted.size(); i++) {
      if (sorted.get(i).fileSize() < targetSize) {
        small++;
      }
    }
    int count = sorted.size() - start;
    if (count < FULL_MIN_FILES || small <= count - small) {
      return List.of();
    }
    return List.of(List.copyOf(sorted.subList(start, sorted.size())));
  }

  /**
   * Whether the outputs of the run {@code sorted[from..to]} take exactly its place in the row
   * order: no other file of its first file's commit starts inside {@code [first sequence, first
   * sequence + rows - 1]}. Only neighbours of the run need a look: {@code sorted} is in row order.
   */
  static boolean keepsOrder(List<DataFileMeta> sorted, int from, int to) {
    DataFileMeta first = sorted.get(from);
    long rows = 0;
    for (int i = from; i <= to; i++) {
      rows += sorted.get(i).rowCount();
    }
    long lo = first.minSequence();
    long hi = lo + Math.max(0, rows - 1);
    long snapshot = first.commitSnapshot();
    if (from > 0) {
      DataFileMeta before = sorted.get(from - 1);
      if (before.commitSnapshot() == snapshot && before.minSequence() >= lo) {
        return false;
      }
    }
    if (to + 1 < sorted.size()) {
      DataFileMeta after = sorted.get(to + 1);
      if (after.commitSnapshot() == snapshot && after.minSequence() <= hi) {
        return false;
      }
    }
    return true;
  }
}
