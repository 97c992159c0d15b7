package dev.lockstep.bench;

import java.util.Arrays;

/** Collects latencies in nanoseconds and reports percentiles in milliseconds. Not thread-safe. */
public final class LatencyRecorder {

  private long[] values = new long[1024];
  private int size;

  public void record(long nanos) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = nanos;
  }

  public void addAll(LatencyRecorder other) {
    for (int i = 0; i < other.size; i++) {
      record(other.values[i]);
    }
  }

  public int count() {
    return size;
  }

  /** The {@code p}-th percentile (0 to 100) in milliseconds, nearest-rank; 0 when empty. */
  public double percentileMillis(double p) {
    if (size == 0) {
      return 0;
    }
    long[] sorted = Arrays.copyOf(values, size);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * size);
    int index = Math.min(size - 1, Math.max(0, rank - 1));
    return sorted[index] / 1_000_000.0;
  }

  public double maxMillis() {
    return percentileMillis(100);
  }
}
