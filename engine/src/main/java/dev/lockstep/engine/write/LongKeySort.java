package dev.lockstep.engine.write;

/**
 * A stable sort of positions by {@code long} keys on primitive arrays: the write buffer of a
 * primary-key table whose first key column is BIGINT sorts this way instead of calling a row
 * comparator (boxed values, a virtual call per comparison). A bottom-up merge sort over (key,
 * position) pairs; insertion sort for short runs.
 */
final class LongKeySort {

  private static final int RUN = 32;

  private LongKeySort() {}

  /**
   * Sorts {@code keys} in place, ascending, and returns the original position of each sorted key;
   * equal keys keep their original order.
   */
  static int[] stableOrder(long[] keys) {
    int n = keys.length;
    int[] pos = new int[n];
    for (int i = 0; i < n; i++) {
      pos[i] = i;
    }
    for (int from = 0; from < n; from += RUN) {
      int to = Math.min(from + RUN, n);
      for (int i = from + 1; i < to; i++) {
        long k = keys[i];
        int p = pos[i];
        int j = i - 1;
        while (j >= from && keys[j] > k) {
          keys[j + 1] = keys[j];
          pos[j + 1] = pos[j];
          j--;
        }
        keys[j + 1] = k;
        pos[j + 1] = p;
      }
    }
    long[] srcKeys = keys;
    int[] srcPos = pos;
    long[] dstKeys = new long[n];
    int[] dstPos = new int[n];
    for (int width = RUN; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        int i = lo;
        int j = mid;
        int k = lo;
        if (mid >= hi || srcKeys[mid - 1] <= srcKeys[mid]) {
          System.arraycopy(srcKeys, lo, dstKeys, lo, hi - lo);
          System.arraycopy(srcPos, lo, dstPos, lo, hi - lo);
          continue;
        }
        while (i < mid && j < hi) {
          // <=: on a tie the left (earlier) element goes first, which keeps the sort stable.
          if (srcKeys[i] <= srcKeys[j]) {
            dstKeys[k] = srcKeys[i];
            dstPos[k++] = srcPos[i++];
          } else {
            dstKeys[k] = srcKeys[j];
            dstPos[k++] = srcPos[j++];
          }
        }
        while (i < mid) {
          dstKeys[k] = srcKeys[i];
          dstPos[k++] = srcPos[i++];
        }
        while (j < hi) {
          dstKeys[k] = srcKeys[j];
          dstPos[k++] = srcPos[j++];
        }
      }
      long[] tk = srcKeys;
      srcKeys = dstKeys;
      dstKeys = tk;
      int[] tp = srcPos;
      srcPos = dstPos;
      dstPos = tp;
    }
    if (srcKeys != keys) {
      System.arraycopy(srcKeys, 0, keys, 0, n);
      System.arraycopy(srcPos, 0, pos, 0, n);
    }
    return pos;
  }
}
