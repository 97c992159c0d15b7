package dev.lockstep.testing;

import java.time.Duration;

/**
 * One scale factor for every wait in the tests, as Curator's {@code Timing}: a slow machine sets
 * {@code -Dlockstep.test.timing=3} and every timeout, lease and pause grows three times.
 */
public final class TestTiming {

  /** The factor, from the system property {@code lockstep.test.timing} (default 1). */
  public static final double FACTOR = factor();

  private TestTiming() {}

  /** {@code base} scaled by {@link #FACTOR}. */
  public static Duration scaled(Duration base) {
    return Duration.ofNanos((long) (base.toNanos() * FACTOR));
  }

  /** {@code millis} milliseconds, scaled. */
  public static Duration millis(long millis) {
    return scaled(Duration.ofMillis(millis));
  }

  /** {@code seconds} seconds, scaled. */
  public static Duration seconds(long seconds) {
    return scaled(Duration.ofSeconds(seconds));
  }

  private static double factor() {
    String value = System.getProperty("lockstep.test.timing", "1");
    try {
      double factor = Double.parseDouble(value.trim());
      if (factor > 0) {
        return factor;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "System property lockstep.test.timing must be a positive number, not '" + value + "'");
  }
}
