package dev.lockstep.engine.format;

import java.time.Instant;

/**
 * How both data-file formats store a {@code TIMESTAMP_LTZ(p)} value, as Paimon does: a long count
 * of milliseconds since 1970-01-01T00:00:00Z for p ≤ 3, of microseconds for p 4 to 6.
 */
final class InstantUnits {

  private InstantUnits() {}

  /** Whether a column of {@code precision} is stored in milliseconds (else microseconds). */
  static boolean millis(int precision) {
    return precision <= 3;
  }

  static long toLong(Instant instant, int precision) {
    if (millis(precision)) {
      return instant.toEpochMilli();
    }
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
  }

  static Instant fromLong(long value, int precision) {
    if (millis(precision)) {
      return Instant.ofEpochMilli(value);
    }
    return Instant.ofEpochSecond(
        Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1_000L);
  }
}
