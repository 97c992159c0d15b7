package dev.lockstep.engine.write;

/**
 * A stable sort of buffer positions ({@code int}s) by a comparison of the rows at those positions:
 * the write buffer sorts positions, not rows, so that each row's position (its sequence number and
 * row kind) stays known after the sort. A merge sort, insertion sort for short runs.
 */
final class PositionSort {

  /** Compares the rows at two positions. */
  interface PositionComparator {
    int compare(int a, int b);
  }

  private static final int RUN = 32;

  private PositionSort() {}

  /** Sorts {@code positions[from, to)} by {@code cmp}; equal elements keep their order. */
  static void sort(int[] positions, int from, int to, PositionComparator cmp) {
    int n = to - from;
    if (n < 2) {
      return;
    }
    if (n > RUN && (from != 0 || to != positions.length)) {
      // Merged through a scratch array of the range's length: sort a copy of the range.
      int[] range = java.util.Arrays.copyOfRange(positions, from, to);
      sort(range, 0, n, cmp);
      System.arraycopy(range, 0, positions, from, n);
      return;
    }
    for (int start = from; start < to; start += RUN) {
      int end = Math.min(start + RUN, to);
      for (int i = start + 1; i < end; i++) {
        int p = positions[i];
        int j = i - 1;
        while (j >= start && cmp.compare(positions[j], p) > 0) {
          positions[j + 1] = positions[j];
          j--;
        }
        positions[j + 1] = p;
      }
    }
    if (n <= RUN) {
      return;
    }
    int[] src = positions;
    int[] dst = new int[n];
    for (int width = RUN; width < n; width *= 2) {
      for (int lo = from; lo < to; lo += 2 * width) {
        int mid = Math.min(lo + width, to);
        int hi = Math.min(lo + 2 * width, to);
        if (mid >= hi || cmp.compare(src[mid - 1], src[mid]) <= 0) {
          System.arraycopy(src, lo, dst, lo, hi - lo);
          continue;
        }
        int i = lo;
        int j = mid;
        int k = lo;
        while (i < mid && j < hi) {
          // <=: on a tie the left (earlier) element goes first, which keeps the sort stable.
          dst[k++] = cmp.compare(src[i], src[j]) <= 0 ? src[i++] : src[j++];
        }
        while (i < mid) {
          dst[k++] = src[i++];
        }
        while (j < hi) {
          dst[k++] = src[j++];
        }
      }
      int[] t = src;
      src = dst;
      dst = t;
    }
    if (src != positions) {
      System.arraycopy(src, 0, positions, 0, n);
    }
  }
}
