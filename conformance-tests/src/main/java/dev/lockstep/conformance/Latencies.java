package dev.lockstep.conformance;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Latencies of store and lock operations measured while the checks run, by operation name ({@code
 * store.write}, {@code lock.acquire}, ...). One recorder per run of the {@link ConformanceRunner},
 * which reads it afterwards. Thread-safe.
 */
public final class Latencies {

  private static final int MAX_SAMPLES = 200_000;

  private final Map<String, Samples> byOperation = new ConcurrentHashMap<>();

  /** Records one call of {@code operation} that took {@code nanos}. */
  public void record(String operation, long nanos) {
    byOperation.computeIfAbsent(operation, k -> new Samples()).add(nanos);
  }

  /** Forgets every sample. */
  public void reset() {
    byOperation.clear();
  }

  /** Percentiles of every operation seen, sorted by operation name. */
  public Map<String, Percentiles> snapshot() {
    Map<String, Percentiles> out = new TreeMap<>();
    byOperation.forEach((op, samples) -> out.put(op, samples.percentiles()));
    return out;
  }

  /**
   * Latency percentiles of one operation.
   *
   * @param count how many calls were measured (samples beyond the first 200 000 are not kept)
   */
  public record Percentiles(long count, Duration p50, Duration p95, Duration p99, Duration max) {}

  private static final class Samples {
    private long[] values = new long[256];
    private int size;
    private long count;

    synchronized void add(long nanos) {
      count++;
      if (size == MAX_SAMPLES) {
        return;
      }
      if (size == values.length) {
        values = Arrays.copyOf(values, values.length * 2);
      }
      values[size++] = nanos;
    }

    synchronized Percentiles percentiles() {
      long[] sorted = Arrays.copyOf(values, size);
      Arrays.sort(sorted);
      return new Percentiles(
          count,
          at(sorted, 0.50),
          at(sorted, 0.95),
          at(sorted, 0.99),
          sorted.length == 0 ? Duration.ZERO : Duration.ofNanos(sorted[sorted.length - 1]));
    }

    private static Duration at(long[] sorted, double quantile) {
      if (sorted.length == 0) {
        return Duration.ZERO;
      }
      int index = (int) Math.ceil(quantile * sorted.length) - 1;
      return Duration.ofNanos(sorted[Math.max(0, Math.min(sorted.length - 1, index))]);
    }
  }
}
