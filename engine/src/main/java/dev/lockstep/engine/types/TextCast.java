package dev.lockstep.engine.types;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;

/**
 * Text cast to the types that Paimon casts with its own rules ({@code CastExecutors}: {@code
 * StringToStringCastRule}, {@code StringToNumericPrimitiveCastRule}, {@code
 * StringToTimestampCastRule}), as {@code CAST(text AS type)} on insert:
 *
 * <ol>
 *   <li>{@code VARCHAR(n)}: text longer than n code points is cut to its first n; shorter text is
 *       kept.
 *   <li>{@code CHAR(n)}: cut to n code points as VARCHAR, and shorter text is padded with blanks
 *       (U+0020) to exactly n.
 *   <li>{@code TINYINT}, {@code SMALLINT}: a whole number in the type's range; anything else
 *       (fractions, overflow) is an error, not a wrap-around.
 *   <li>{@code FLOAT}: {@link Float#parseFloat} (rounded to the nearest float; {@code NaN}, {@code
 *       Infinity}, {@code -0.0} accepted).
 *   <li>{@code TIMESTAMP_LTZ(p)}: {@code yyyy-mm-dd[( |T)hh:mm[:ss[.fffffffff]]][offset]}; the
 *       offset ({@code Z}, {@code +02:00}) places the local time on the time line; without one the
 *       time is UTC. (Paimon uses the JVM's zone there; a load that depends on the machine it runs
 *       on is not reproducible, so here it is UTC.) Fractional digits beyond p are truncated
 *       (toward the past), as Paimon's cast does.
 * </ol>
 *
 * <p>Every method throws {@link IllegalArgumentException} naming the problem for text that does not
 * cast.
 */
public final class TextCast {

  private static final DateTimeFormatter TIMESTAMP =
      new DateTimeFormatterBuilder()
          .parseCaseInsensitive()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .optionalStart()
          .appendLiteral('T')
          .append(DateTimeFormatter.ISO_LOCAL_TIME)
          .optionalEnd()
          .optionalStart()
          .appendOffsetId()
          .optionalEnd()
          .toFormatter()
          .withResolverStyle(java.time.format.ResolverStyle.STRICT);

  private TextCast() {}

  /**
   * {@code text} as a value of {@code type} for the types this class casts (TINYINT, SMALLINT,
   * FLOAT, CHAR, VARCHAR, TIMESTAMP_LTZ); surrounding blanks are ignored except for CHAR and
   * VARCHAR, which keep the text as it is.
   */
  public static Object parse(DataType type, String text) {
    switch (type.root()) {
      case TINYINT:
        return (byte) wholeNumber(text, Byte.MIN_VALUE, Byte.MAX_VALUE, type);
      case SMALLINT:
        return (short) wholeNumber(text, Short.MIN_VALUE, Short.MAX_VALUE, type);
      case FLOAT:
        try {
          return Float.parseFloat(text.trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("not a number");
        }
      case CHAR:
      case VARCHAR:
        return toCharacter(type, text);
      case TIMESTAMP_LTZ:
        return toInstant(text, type.precision());
      default:
        throw new IllegalArgumentException("TextCast does not cast to " + type);
    }
  }

  private static int wholeNumber(String text, int min, int max, DataType type) {
    long value;
    try {
      value = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a whole number");
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          "out of range: " + type.root() + " holds " + min + ".." + max);
    }
    return (int) value;
  }

  /**
   * {@code text} cast to a CHAR(n) or VARCHAR(n) {@code type}: cut to n code points, and for CHAR
   * padded with blanks to n.
   */
  public static String toCharacter(DataType type, String text) {
    int n = type.length();
    int length = text.codePointCount(0, text.length());
    if (length > n) {
      return text.substring(0, text.offsetByCodePoints(0, n));
    }
    if (length < n && type.root() == DataTypeRoot.CHAR) {
      return text + " ".repeat(n - length);
    }
    return text;
  }

  /** Whether {@link #toCharacter} cuts {@code text} (it is longer than the type's length). */
  public static boolean truncates(DataType type, String text) {
    return text.codePointCount(0, text.length()) > type.length();
  }

  /**
   * A TIMESTAMP_LTZ text as an instant with {@code precision} fractional digits: with its offset,
   * or in UTC without one; a date alone is its midnight.
   */
  public static Instant toInstant(String text, int precision) {
    String t = text.trim();
    if (t.length() > 10 && t.charAt(10) == ' ') {
      t = t.substring(0, 10) + 'T' + t.substring(11);
    }
    TemporalAccessor parsed;
    try {
      parsed = TIMESTAMP.parse(t);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "not a timestamp; write 2024-05-01 10:00:00[.ffffff] with an optional offset"
              + " (Z, +02:00); without one the time is UTC");
    }
    LocalDate date = LocalDate.from(parsed);
    LocalDateTime local =
        parsed.isSupported(ChronoField.NANO_OF_DAY)
            ? date.atTime(java.time.LocalTime.from(parsed))
            : date.atStartOfDay();
    ZoneOffset offset =
        parsed.isSupported(ChronoField.OFFSET_SECONDS)
            ? ZoneOffset.ofTotalSeconds(parsed.get(ChronoField.OFFSET_SECONDS))
            : ZoneOffset.UTC;
    return truncate(local.toInstant(offset), precision);
  }

  /** {@code instant} with only {@code precision} (0..9) fractional digits, cut toward the past. */
  public static Instant truncate(Instant instant, int precision) {
    int unit = DataType.NANOS_PER_UNIT[precision];
    return instant.minusNanos(instant.getNano() % unit);
  }
}
