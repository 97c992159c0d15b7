package dev.lockstep.engine.predicate;

import java.util.Locale;

/**
 * What the statistics of a column keep ({@code metadata.stats-mode}, per column {@code
 * fields.<name>.stats-mode}, as Paimon names them): {@code none}, {@code counts} (null count only),
 * {@code truncate(n)} (null count, min and max, STRING and BYTES bounds cut to {@code n} characters
 * or bytes: the min to its prefix, the max to its prefix with the last character or byte raised by
 * one, so that it stays an upper bound, or no max where no such prefix exists) and {@code full}.
 *
 * @param kind which of the four
 * @param length the prefix length of {@code truncate(n)}; 0 otherwise
 */
public record StatsMode(Kind kind, int length) {

  /** The four modes. */
  public enum Kind {
    NONE,
    COUNTS,
    TRUNCATE,
    FULL
  }

  public static final StatsMode NONE = new StatsMode(Kind.NONE, 0);
  public static final StatsMode COUNTS = new StatsMode(Kind.COUNTS, 0);
  public static final StatsMode FULL = new StatsMode(Kind.FULL, 0);

  /** Paimon's default, {@code truncate(16)}. */
  public static final StatsMode DEFAULT = new StatsMode(Kind.TRUNCATE, 16);

  public StatsMode {
    if ((kind == Kind.TRUNCATE) != (length > 0)) {
      throw new IllegalArgumentException("truncate(n) takes a length of at least 1");
    }
  }

  /**
   * Parses {@code none}, {@code counts}, {@code truncate(n)} or {@code full} (any case).
   *
   * @throws IllegalArgumentException naming the text and the accepted modes
   */
  public static StatsMode parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT).replace(" ", "");
    switch (t) {
      case "none":
        return NONE;
      case "counts":
        return COUNTS;
      case "full":
        return FULL;
      default:
        if (t.startsWith("truncate(") && t.endsWith(")")) {
          try {
            int n = Integer.parseInt(t.substring("truncate(".length(), t.length() - 1));
            if (n >= 1) {
              return new StatsMode(Kind.TRUNCATE, n);
            }
          } catch (NumberFormatException e) {
            // Reported below.
          }
        }
        throw new IllegalArgumentException(
            "Stats mode '"
                + text
                + "' is unknown: use none, counts, truncate(n) with n >= 1, or full.");
    }
  }

  @Override
  public String toString() {
    return kind == Kind.TRUNCATE
        ? "truncate(" + length + ")"
        : kind.name().toLowerCase(Locale.ROOT);
  }
}
