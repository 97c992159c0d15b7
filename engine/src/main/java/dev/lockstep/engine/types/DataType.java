package dev.lockstep.engine.types;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Objects;

/**
 * A column type: its root, nullability and, for {@code DECIMAL}, precision and scale; for {@code
 * CHAR} and {@code VARCHAR} the length (in {@code precision}), for {@code TIMESTAMP_LTZ} the
 * fractional digits of a second (in {@code precision}).
 *
 * <p>Printed and parsed as SQL writes it: {@code INT}, {@code STRING NOT NULL}, {@code DECIMAL(10,
 * 2)}, {@code VARCHAR(20)}, {@code TIMESTAMP_LTZ(3)}. Schema files store this text. Parsing also
 * takes Paimon's spellings: {@code TIMESTAMP(3) WITH LOCAL TIME ZONE}, {@code INTEGER}, {@code
 * CHAR}/{@code VARCHAR} without a length (length 1, as SQL), {@code VARCHAR(2147483647)} (which is
 * {@code STRING}).
 */
public record DataType(DataTypeRoot root, boolean nullable, int precision, int scale) {

  public static final int MAX_DECIMAL_PRECISION = 38;

  /** The finest TIMESTAMP_LTZ precision: microseconds. */
  public static final int MAX_TIMESTAMP_LTZ_PRECISION = 6;

  /** The precision of {@code TIMESTAMP_LTZ} without one, as Paimon's. */
  public static final int DEFAULT_TIMESTAMP_LTZ_PRECISION = 6;

  /** The length of {@code CHAR} and {@code VARCHAR} without one, as Paimon's (and SQL's). */
  public static final int DEFAULT_LENGTH = 1;

  public DataType {
    Objects.requireNonNull(root, "root");
    if (root == DataTypeRoot.DECIMAL) {
      if (precision < 1 || precision > MAX_DECIMAL_PRECISION || scale < 0 || scale > precision) {
        throw new IllegalArgumentException(
            "DECIMAL("
                + precision
                + ", "
                + scale
                + ") is invalid:"
                + " precision must be 1.."
                + MAX_DECIMAL_PRECISION
                + " and scale 0..precision.");
      }
    } else if (root == DataTypeRoot.CHAR || root == DataTypeRoot.VARCHAR) {
      if (precision < 1 || scale != 0) {
        throw new IllegalArgumentException(
            root
                + "("
                + precision
                + ") is invalid: the length must be 1.."
                + Integer.MAX_VALUE
                + " characters.");
      }
    } else if (root == DataTypeRoot.TIMESTAMP_LTZ) {
      if (precision < 0 || precision > MAX_TIMESTAMP_LTZ_PRECISION || scale != 0) {
        throw new IllegalArgumentException(
            "TIMESTAMP_LTZ("
                + precision
                + ") is invalid: the precision must be 0.."
                + MAX_TIMESTAMP_LTZ_PRECISION
                + " (fractional digits of a second; the engine keeps microseconds, as Paimon's"
                + " Avro format does); use TIMESTAMP_LTZ("
                + MAX_TIMESTAMP_LTZ_PRECISION
                + ").");
      }
    } else if (precision != 0 || scale != 0) {
      throw new IllegalArgumentException(root + " takes no precision or scale");
    }
  }

  public static DataType intType() {
    return new DataType(DataTypeRoot.INT, true, 0, 0);
  }

  public static DataType bigint() {
    return new DataType(DataTypeRoot.BIGINT, true, 0, 0);
  }

  public static DataType doubleType() {
    return new DataType(DataTypeRoot.DOUBLE, true, 0, 0);
  }

  public static DataType booleanType() {
    return new DataType(DataTypeRoot.BOOLEAN, true, 0, 0);
  }

  public static DataType string() {
    return new DataType(DataTypeRoot.STRING, true, 0, 0);
  }

  public static DataType bytes() {
    return new DataType(DataTypeRoot.BYTES, true, 0, 0);
  }

  public static DataType decimal(int precision, int scale) {
    return new DataType(DataTypeRoot.DECIMAL, true, precision, scale);
  }

  public static DataType date() {
    return new DataType(DataTypeRoot.DATE, true, 0, 0);
  }

  public static DataType timestamp() {
    return new DataType(DataTypeRoot.TIMESTAMP, true, 0, 0);
  }

  public static DataType tinyint() {
    return new DataType(DataTypeRoot.TINYINT, true, 0, 0);
  }

  public static DataType smallint() {
    return new DataType(DataTypeRoot.SMALLINT, true, 0, 0);
  }

  public static DataType floatType() {
    return new DataType(DataTypeRoot.FLOAT, true, 0, 0);
  }

  /** {@code CHAR(length)}: text of exactly {@code length} code points, blank-padded. */
  public static DataType charType(int length) {
    return new DataType(DataTypeRoot.CHAR, true, length, 0);
  }

  /** {@code VARCHAR(length)}: text of at most {@code length} code points. */
  public static DataType varchar(int length) {
    return new DataType(DataTypeRoot.VARCHAR, true, length, 0);
  }

  /** {@code TIMESTAMP_LTZ(precision)}: an instant with {@code precision} fractional digits. */
  public static DataType timestampLtz(int precision) {
    return new DataType(DataTypeRoot.TIMESTAMP_LTZ, true, precision, 0);
  }

  /** The length of a {@code CHAR} or {@code VARCHAR} (its {@link #precision}). */
  public int length() {
    return precision;
  }

  /** This type without nulls. */
  public DataType notNull() {
    return new DataType(root, false, precision, scale);
  }

  /** This type with nulls allowed. */
  public DataType nullableType() {
    return new DataType(root, true, precision, scale);
  }

  /**
   * Checks that {@code value} fits this type.
   *
   * @throws IllegalArgumentException naming the column, the value's class and the expected class
   */
  public void validate(String column, Object value) {
    if (value == null) {
      if (!nullable) {
        throw new IllegalArgumentException("Column '" + column + "' is " + this + " but got null.");
      }
      return;
    }
    if (!root.javaClass().isInstance(value)) {
      throw new IllegalArgumentException(
          "Column '"
              + column
              + "' is "
              + this
              + " and takes a "
              + root.javaClass().getSimpleName()
              + ", not a "
              + value.getClass().getSimpleName()
              + ".");
    }
    if (root == DataTypeRoot.DECIMAL) {
      BigDecimal decimal = (BigDecimal) value;
      if (decimal.scale() != scale || decimal.precision() > precision) {
        throw new IllegalArgumentException(
            "Column '"
                + column
                + "' is "
                + this
                + " but "
                + decimal
                + " has precision "
                + decimal.precision()
                + " and scale "
                + decimal.scale()
                + "; use setScale("
                + scale
                + ").");
      }
    } else if (root == DataTypeRoot.CHAR || root == DataTypeRoot.VARCHAR) {
      String text = (String) value;
      int length = text.codePointCount(0, text.length());
      if (length > precision || (root == DataTypeRoot.CHAR && length < precision)) {
        throw new IllegalArgumentException(
            "Column '"
                + column
                + "' is "
                + this
                + " but the value has "
                + length
                + " characters; "
                + (root == DataTypeRoot.CHAR
                    ? "CHAR values are exactly " + precision + " characters, blank-padded"
                    : "VARCHAR values are at most " + precision + " characters")
                + " (TextCast.toCharacter casts text as SQL's CAST does).");
      }
    } else if (root == DataTypeRoot.TIMESTAMP_LTZ) {
      java.time.Instant instant = (java.time.Instant) value;
      long seconds = instant.getEpochSecond();
      if (seconds >= Long.MAX_VALUE / 1_000_000 || seconds <= Long.MIN_VALUE / 1_000_000) {
        throw new IllegalArgumentException(
            "Column '"
                + column
                + "' is "
                + this
                + " but "
                + instant
                + " is outside its range (microseconds since 1970 in 64 bits: about 292,000"
                + " years either way).");
      }
      if (instant.getNano() % NANOS_PER_UNIT[precision] != 0) {
        throw new IllegalArgumentException(
            "Column '"
                + column
                + "' is "
                + this
                + " but "
                + instant
                + " has more than "
                + precision
                + " fractional digits; truncate it (TextCast.truncate).");
      }
    }
  }

  /** Nanoseconds in one unit of each precision 0..9 (TIMESTAMP_LTZ takes 0..6). */
  static final int[] NANOS_PER_UNIT = {
    1_000_000_000, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1
  };

  /**
   * Parses the text {@link #toString()} prints.
   *
   * @throws IllegalArgumentException naming the text and the accepted types
   */
  @JsonCreator
  public static DataType parse(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
    boolean nullable = true;
    if (t.endsWith(" NOT NULL")) {
      nullable = false;
      t = t.substring(0, t.length() - " NOT NULL".length()).trim();
    }
    java.util.regex.Matcher ltz = LOCAL_TIME_ZONE.matcher(t);
    if (ltz.matches()) {
      // Paimon's and Flink's spelling: TIMESTAMP(p) WITH LOCAL TIME ZONE.
      t = "TIMESTAMP_LTZ" + (ltz.group(1) == null ? "" : ltz.group(1));
    }
    int precision = 0;
    int scale = 0;
    String rootName = t;
    int open = t.indexOf('(');
    if (open >= 0) {
      if (!t.endsWith(")")) {
        throw unknown(text);
      }
      rootName = t.substring(0, open).trim();
      String[] args = t.substring(open + 1, t.length() - 1).split(",");
      try {
        precision = Integer.parseInt(args[0].trim());
        scale = args.length > 1 ? Integer.parseInt(args[1].trim()) : 0;
      } catch (NumberFormatException e) {
        throw unknown(text);
      }
    } else if (t.equals("DECIMAL")) {
      precision = 10;
    } else if (t.equals("CHAR") || t.equals("VARCHAR")) {
      precision = DEFAULT_LENGTH;
    } else if (t.equals("TIMESTAMP_LTZ")) {
      precision = DEFAULT_TIMESTAMP_LTZ_PRECISION;
    }
    if (rootName.equals("INTEGER")) {
      rootName = "INT";
    }
    DataTypeRoot root;
    try {
      root = DataTypeRoot.valueOf(rootName);
    } catch (IllegalArgumentException e) {
      throw unknown(text);
    }
    if (root == DataTypeRoot.VARCHAR && precision == Integer.MAX_VALUE) {
      // Paimon's STRING is VARCHAR of the greatest length, and prints as STRING.
      return new DataType(DataTypeRoot.STRING, nullable, 0, 0);
    }
    return new DataType(root, nullable, precision, scale);
  }

  private static final java.util.regex.Pattern LOCAL_TIME_ZONE =
      java.util.regex.Pattern.compile("TIMESTAMP ?(\\( ?\\d+ ?\\))? WITH LOCAL TIME ZONE");

  private static IllegalArgumentException unknown(String text) {
    return new IllegalArgumentException(
        "Unknown column type '"
            + text
            + "'. Use TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, BOOLEAN, STRING, CHAR(n),"
            + " VARCHAR(n), BYTES, DECIMAL(p, s), DATE, TIMESTAMP or TIMESTAMP_LTZ(p), optionally"
            + " with NOT NULL.");
  }

  @JsonValue
  @Override
  public String toString() {
    String base;
    switch (root) {
      case DECIMAL:
        base = "DECIMAL(" + precision + ", " + scale + ")";
        break;
      case CHAR:
      case VARCHAR:
      case TIMESTAMP_LTZ:
        base = root.name() + "(" + precision + ")";
        break;
      default:
        base = root.name();
    }
    return nullable ? base : base + " NOT NULL";
  }
}
