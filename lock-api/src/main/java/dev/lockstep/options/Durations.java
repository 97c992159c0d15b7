package dev.lockstep.options;

import java.time.Duration;
import java.util.Locale;

/**
 * Parses and prints durations with units, as options write them: {@code "30 s"}, {@code "8 min"},
 * {@code "500ms"}, {@code "1 h"}, {@code "2 d"}. A bare number is milliseconds (as in Apache
 * Paimon).
 */
public final class Durations {

  private Durations() {}

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException naming the text and the accepted units
   */
  public static Duration parse(String text) {
    String trimmed = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    int i = 0;
    while (i < trimmed.length() && Character.isDigit(trimmed.charAt(i))) {
      i++;
    }
    if (i == 0) {
      throw invalid(text);
    }
    long amount;
    try {
      amount = Long.parseLong(trimmed.substring(0, i));
    } catch (NumberFormatException e) {
      throw invalid(text);
    }
    String unit = trimmed.substring(i).trim();
    switch (unit) {
      case "":
      case "ms":
      case "milli":
      case "millis":
      case "millisecond":
      case "milliseconds":
        return Duration.ofMillis(amount);
      case "ns":
      case "nanos":
      case "nanoseconds":
        return Duration.ofNanos(amount);
      case "us":
      case "µs":
      case "micros":
      case "microseconds":
        return Duration.ofNanos(Math.multiplyExact(amount, 1000L));
      case "s":
      case "sec":
      case "secs":
      case "second":
      case "seconds":
        return Duration.ofSeconds(amount);
      case "m":
      case "min":
      case "mins":
      case "minute":
      case "minutes":
        return Duration.ofMinutes(amount);
      case "h":
      case "hour":
      case "hours":
        return Duration.ofHours(amount);
      case "d":
      case "day":
      case "days":
        return Duration.ofDays(amount);
      default:
        throw invalid(text);
    }
  }

  /**
   * Prints {@code duration} in the largest unit that keeps it exact, for example {@code "8 min"}.
   */
  public static String format(Duration duration) {
    long nanos = duration.toNanos();
    if (nanos == 0) {
      return "0 ms";
    }
    long[] sizes = {
      86_400_000_000_000L,
      3_600_000_000_000L,
      60_000_000_000L,
      1_000_000_000L,
      1_000_000L,
      1_000L,
      1L
    };
    String[] names = {"d", "h", "min", "s", "ms", "us", "ns"};
    for (int k = 0; k < sizes.length; k++) {
      if (nanos % sizes[k] == 0) {
        return (nanos / sizes[k]) + " " + names[k];
      }
    }
    return nanos + " ns";
  }

  /**
   * Prints a measured duration (a lease's time left, a write's budget) for people: in the largest
   * unit it reaches, rounded to a tenth below 100 of that unit and to a whole above, for example
   * {@code "26.9 s"}, {@code "800 ms"} or {@code "1.5 min"}. Not exact: {@link #format} prints
   * configured values, which {@link #parse} reads back.
   */
  public static String formatRounded(Duration duration) {
    long nanos = duration.toNanos();
    if (nanos < 0) {
      return "-" + formatRounded(duration.negated());
    }
    if (nanos == 0) {
      return "0 ms";
    }
    long[] sizes = {
      86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L
    };
    String[] names = {"d", "h", "min", "s", "ms", "us"};
    for (int k = 0; k < sizes.length; k++) {
      if (nanos >= sizes[k]) {
        double value = (double) nanos / sizes[k];
        if (value >= 100) {
          return Math.round(value) + " " + names[k];
        }
        String text = String.format(Locale.ROOT, "%.1f", value);
        if (text.endsWith(".0")) {
          text = text.substring(0, text.length() - 2);
        }
        return text + " " + names[k];
      }
    }
    return nanos + " ns";
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException(
        "Cannot read '"
            + text
            + "' as a duration. Write a whole number"
            + " and a unit, for example \"500 ms\", \"30 s\", \"8 min\", \"1 h\" or \"2 d\".");
  }
}
