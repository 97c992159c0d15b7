package dev.lockstep.lock.jdbc;

import java.time.Duration;

/**
 * One scale factor for every wait in these tests: {@code -Dlockstep.test.timing-factor=3} on a slow
 * machine (as curator-test's {@code Timing}).
 */
final class TestTiming {

  static final double FACTOR =
      Double.parseDouble(System.getProperty("lockstep.test.timing-factor", "1"));

  /** The lease TTL the failure tests use: short, so that expiry is observed quickly. */
  static final Duration SHORT_TTL = Duration.ofSeconds(3);

  /** {@code lock-check-max-sleep} in the tests: the longest wait between acquire attempts. */
  static final Duration RETRY = Duration.ofMillis(200);

  private TestTiming() {}

  /** {@code base} times the factor. */
  static Duration scaled(Duration base) {
    return Duration.ofNanos((long) (base.toNanos() * FACTOR));
  }

  /** Slack for database round trips and JVM noise on top of a protocol bound. */
  static Duration slack() {
    return scaled(Duration.ofMillis(1500));
  }
}
