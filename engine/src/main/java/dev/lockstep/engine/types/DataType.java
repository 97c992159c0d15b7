package dev.lockstep.engine.types;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Objects;

/**
 * A column type: its root, nullability and, for {@code DECIMAL}, precision and scale.
 *
 * <p>Printed and parsed as SQL writes it: {@code INT}, {@code STRING NOT NULL}, {@code DECIMAL(10,
 * 2)}. Schema files store this text.
 */
public record DataType(DataTypeRoot root, boolean nullable, int precision, int scale) {

  public static final int MAX_DECIMAL_PRECISION = 38;

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
    }
  }

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
    return new DataType(root, nullable, precision, scale);
  }

  private static IllegalArgumentException unknown(String text) {
    return new IllegalArgumentException(
        "Unknown column type '"
            + text
            + "'. Use INT, BIGINT, DOUBLE,"
            + " BOOLEAN, STRING, BYTES, DECIMAL(p, s), DATE or TIMESTAMP, optionally with NOT NULL.");
  }

  @JsonValue
  @Override
  public String toString() {
    String base =
        root == DataTypeRoot.DECIMAL ? "DECIMAL(" + precision + ", " + scale + ")" : root.name();
    return nullable ? base : base + " NOT NULL";
  }
}
