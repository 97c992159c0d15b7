package dev.lockstep.engine.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The BIGINT write-buffer sort agrees with a stable object sort for every size and key spread. */
class LongKeySortTest {

  @Test
  void sortsStablyLikeAnObjectSort() {
    Random random = new Random(11);
    int[] sizes = {0, 1, 2, 31, 32, 33, 64, 65, 1000, 4097, 20_000};
    for (int n : sizes) {
      for (int spread : new int[] {1, 3, 100, Integer.MAX_VALUE}) {
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
          keys[i] =
              spread == Integer.MAX_VALUE
                  ? random.nextLong()
                  : (random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE - spread)
                      + random.nextInt(spread);
        }
        Integer[] expected = new Integer[n];
        for (int i = 0; i < n; i++) {
          expected[i] = i;
        }
        long[] original = keys.clone();
        Arrays.sort(expected, Comparator.comparingLong(i -> original[i]));
        int[] order = LongKeySort.stableOrder(keys);
        assertThat(order).containsExactly(Arrays.stream(expected).mapToInt(i -> i).toArray());
        long[] sorted = original.clone();
        Arrays.sort(sorted);
        assertThat(keys).containsExactly(sorted);
      }
    }
  }
}
