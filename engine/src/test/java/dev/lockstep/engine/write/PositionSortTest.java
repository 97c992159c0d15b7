package dev.lockstep.engine.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The write buffer's position sort agrees with a stable object sort, on whole arrays and ranges.
 */
class PositionSortTest {

  @Test
  void sortsStablyLikeAnObjectSort() {
    Random random = new Random(12);
    int[] sizes = {0, 1, 2, 31, 32, 33, 64, 65, 1000, 4097, 20_000};
    for (int n : sizes) {
      for (int spread : new int[] {1, 3, 100, Integer.MAX_VALUE}) {
        int[] keys = new int[n];
        for (int i = 0; i < n; i++) {
          keys[i] = spread == Integer.MAX_VALUE ? random.nextInt() : random.nextInt(spread);
        }
        // A range in the middle, and the whole array.
        int from = n / 3;
        int to = n - n / 4;
        for (int[] range : new int[][] {{from, to}, {0, n}}) {
          int[] positions = new int[n];
          for (int i = 0; i < n; i++) {
            positions[i] = n - 1 - i;
          }
          Integer[] expected = new Integer[n];
          for (int i = 0; i < n; i++) {
            expected[i] = positions[i];
          }
          Arrays.sort(expected, range[0], range[1], Comparator.comparingInt(p -> keys[p]));
          PositionSort.sort(
              positions, range[0], range[1], (a, b) -> Integer.compare(keys[a], keys[b]));
          assertThat(positions).containsExactly(Arrays.stream(expected).mapToInt(i -> i).toArray());
        }
      }
    }
  }
}
