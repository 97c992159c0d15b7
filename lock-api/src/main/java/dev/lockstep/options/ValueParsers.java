package dev.lockstep.options;

import java.time.Duration;
import java.util.Locale;

/**
 * The one parser for option values: durations, sizes, booleans and numbers. Every module reads its
 * options through {@link ConfigOption}, which calls these, so {@code "64 mb"} and {@code "64mb"}
 * mean the same everywhere.
 *
 * <ul>
 *   <li>Durations: see {@link Durations#parse}: a whole number and a unit, {@code "500 ms"}, {@code
 *       "30s"}, {@code "8 min"}; a bare number is milliseconds (as in Apache Paimon).
 *   <li>Sizes: a whole number and an optional unit, with or without a space, any case: {@code b} /
 *       {@code bytes}, {@code k} / {@code kb} / {@code kib}, {@code m} / {@code mb} / {@code mib},
 *       {@code g} / {@code gb} / {@code gib}, {@code t} / {@code tb} / {@code tib}. Every unit is a
 *       power of 1024 ({@code 1 kb} = {@code 1 KiB} = 1024 bytes), as in Paimon and Flink. A bare
 *       number is bytes.
 *   <li>Booleans: {@code true} or {@code false}, any case.
 * </ul>
 *
 * <p>Each parser throws an {@link IllegalArgumentException} whose message is the fix ("write true
 * or false"); {@link ConfigOption} prefixes it with the key and the value.
 */
public final class ValueParsers {

  private static final String[] SIZE_UNITS = {"b", "kb", "mb", "gb", "tb"};
  private static final String[] SIZE_NAMES = {"bytes", "KiB", "MiB", "GiB", "TiB"};

  private ValueParsers() {}

  /** A duration; the fix names the accepted units. */
  public static Duration duration(String text) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "write a whole number and a unit, for example \"500 ms\","
              + " \"30 s\", \"8 min\", \"1 h\" or \"2 d\"",
          e);
    }
  }

  /** A number of bytes; see the class comment for the units. */
  public static long size(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    int i = 0;
    while (i < t.length() && Character.isDigit(t.charAt(i))) {
      i++;
    }
    int shift =
        switch (t.substring(i).trim()) {
          case "", "b", "byte", "bytes" -> 0;
          case "k", "kb", "kib" -> 10;
          case "m", "mb", "mib" -> 20;
          case "g", "gb", "gib" -> 30;
          case "t", "tb", "tib" -> 40;
          default -> -1;
        };
    if (i == 0 || shift < 0) {
      throw new IllegalArgumentException(
          "write a whole number of bytes with an optional unit, for"
              + " example \"512 kb\", \"8 MiB\", \"64mb\" or \"1 gb\" (units are powers of 1024)");
    }
    try {
      return Math.multiplyExact(Long.parseLong(t.substring(0, i)), 1L << shift);
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("write a size below 8 EiB", e);
    }
  }

  /** Prints a size in the largest unit that keeps it exact: {@code "64 MiB"}, {@code "100 KiB"}. */
  public static String formatSize(long bytes) {
    int k = 0;
    while (k < SIZE_UNITS.length - 1 && bytes != 0 && bytes % (1L << (10 * (k + 1))) == 0) {
      k++;
    }
    return (bytes >> (10 * k)) + " " + SIZE_NAMES[k];
  }

  /** {@code true} or {@code false}, any case. */
  public static boolean bool(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    return switch (t) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("write true or false");
    };
  }

  /** A whole number that fits an {@code int}. */
  public static int integer(String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException("write a whole number", e);
    }
  }

  /** A whole number that fits a {@code long}. */
  public static long longInteger(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException("write a whole number", e);
    }
  }

  /** A decimal number, for example {@code 0.05}. */
  public static double decimal(String text) {
    try {
      double value = Double.parseDouble(text.trim());
      if (Double.isNaN(value) || Double.isInfinite(value)) {
        throw new NumberFormatException(text);
      }
      return value;
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException("write a number", e);
    }
  }
}
