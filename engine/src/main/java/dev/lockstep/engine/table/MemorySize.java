package dev.lockstep.engine.table;

import java.util.Locale;

/** Parses sizes as options write them: {@code "64 mb"}, {@code "256 kb"}, {@code "1 gb"}, bytes. */
public final class MemorySize {

  private MemorySize() {}

  /**
   * The number of bytes {@code text} names.
   *
   * @throws IllegalArgumentException naming the option, the text and the accepted units
   */
  public static long parseBytes(String key, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    int i = 0;
    while (i < t.length() && Character.isDigit(t.charAt(i))) {
      i++;
    }
    if (i == 0) {
      throw invalid(key, text);
    }
    long amount = Long.parseLong(t.substring(0, i));
    String unit = t.substring(i).trim();
    long factor;
    switch (unit) {
      case "": case "b": case "bytes":
        factor = 1;
        break;
      case "k": case "kb": case "kib":
        factor = 1L << 10;
        break;
      case "m": case "mb": case "mib":
        factor = 1L << 20;
        break;
      case "g": case "gb": case "gib":
        factor = 1L << 30;
        break;
      default:
        throw invalid(key, text);
    }
    return Math.multiplyExact(amount, factor);
  }

  private static IllegalArgumentException invalid(String key, String text) {
    return new IllegalArgumentException("Option '" + key + "' is '" + text + "'; write a size such"
        + " as \"512 kb\", \"64 mb\" or \"1 gb\".");
  }
}
