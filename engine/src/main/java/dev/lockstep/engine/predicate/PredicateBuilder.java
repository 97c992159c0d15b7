package dev.lockstep.engine.predicate;

import dev.lockstep.engine.predicate.Predicate.Leaf;
import dev.lockstep.engine.predicate.Predicate.Op;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.engine.types.TextCast;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Builds {@link Predicate}s on the columns of a row type, by column name. Literals are converted to
 * the column's Java class: any integral number for INT and BIGINT (if it fits), any number for
 * DOUBLE and DECIMAL, text in ISO form for DATE ({@code 2024-05-01}) and TIMESTAMP ({@code
 * 2024-05-01 10:00:00.123456} or with {@code T}), whole numbers in range for TINYINT and SMALLINT,
 * any number for FLOAT (rounded to a float), text for CHAR(n) (padded to n as stored values are;
 * longer text is kept and equals nothing) and VARCHAR, and for TIMESTAMP_LTZ an {@code Instant},
 * text with an optional offset ({@code 2024-05-01 10:00:00+02:00}; UTC without one) or a
 * TIMESTAMP/DATE taken as UTC. NULL is never a literal: use {@link #isNull}.
 *
 * @throws IllegalArgumentException (every method) naming an unknown column and the columns, or a
 *     literal that does not fit the column's type
 */
public final class PredicateBuilder {

  private final RowType rowType;

  public PredicateBuilder(RowType rowType) {
    this.rowType = rowType;
  }

  public RowType rowType() {
    return rowType;
  }

  public Predicate equal(String column, Object literal) {
    return leaf(Op.EQ, column, literal);
  }

  public Predicate notEqual(String column, Object literal) {
    return leaf(Op.NE, column, literal);
  }

  public Predicate lessThan(String column, Object literal) {
    return leaf(Op.LT, column, literal);
  }

  public Predicate lessOrEqual(String column, Object literal) {
    return leaf(Op.LE, column, literal);
  }

  public Predicate greaterThan(String column, Object literal) {
    return leaf(Op.GT, column, literal);
  }

  public Predicate greaterOrEqual(String column, Object literal) {
    return leaf(Op.GE, column, literal);
  }

  public Predicate in(String column, List<?> literals) {
    return list(Op.IN, column, literals);
  }

  public Predicate notIn(String column, List<?> literals) {
    return list(Op.NOT_IN, column, literals);
  }

  public Predicate isNull(String column) {
    return new Leaf(Op.IS_NULL, index(column), column, List.of());
  }

  public Predicate isNotNull(String column) {
    return new Leaf(Op.IS_NOT_NULL, index(column), column, List.of());
  }

  public static Predicate and(Predicate... children) {
    return new Predicate.And(Arrays.asList(children));
  }

  public static Predicate or(Predicate... children) {
    return new Predicate.Or(Arrays.asList(children));
  }

  public static Predicate not(Predicate child) {
    return new Predicate.Not(child);
  }

  /** A comparison by operator symbol: {@code =}, {@code <>} (or {@code !=}), {@code <}, ... */
  public Predicate compare(String symbol, String column, Object literal) {
    switch (symbol) {
      case "=":
        return equal(column, literal);
      case "<>":
      case "!=":
        return notEqual(column, literal);
      case "<":
        return lessThan(column, literal);
      case "<=":
        return lessOrEqual(column, literal);
      case ">":
        return greaterThan(column, literal);
      case ">=":
        return greaterOrEqual(column, literal);
      default:
        throw new IllegalArgumentException("Unknown comparison '" + symbol + "'");
    }
  }

  private Predicate leaf(Op op, String column, Object literal) {
    int index = index(column);
    return new Leaf(op, index, column, List.of(convert(rowType.field(index), literal)));
  }

  private Predicate list(Op op, String column, List<?> literals) {
    int index = index(column);
    if (literals.isEmpty()) {
      throw new IllegalArgumentException(op.symbol + " on '" + column + "' needs a value");
    }
    List<Object> converted = new ArrayList<>();
    for (Object literal : literals) {
      converted.add(convert(rowType.field(index), literal));
    }
    return new Leaf(op, index, column, converted);
  }

  private int index(String column) {
    int index = rowType.indexOf(column);
    if (index < 0) {
      throw new IllegalArgumentException(
          "No column '" + column + "'; the columns are " + rowType.names() + ".");
    }
    return index;
  }

  /**
   * {@code literal} as a value of {@code field}'s type.
   *
   * @throws IllegalArgumentException for NULL or a literal that does not fit, naming the column
   */
  public static Object convert(DataField field, Object literal) {
    DataType type = field.type();
    if (literal == null) {
      throw new IllegalArgumentException(
          "A comparison of '"
              + field.name()
              + "' with NULL is never true; use IS NULL or IS NOT NULL.");
    }
    try {
      switch (type.root()) {
        case INT:
          return decimalOf(literal).intValueExact();
        case BIGINT:
          return decimalOf(literal).longValueExact();
        case TINYINT:
          return decimalOf(literal).byteValueExact();
        case SMALLINT:
          return decimalOf(literal).shortValueExact();
        case FLOAT:
          if (literal instanceof Float) {
            return literal;
          }
          if (literal instanceof Double) {
            return ((Double) literal).floatValue();
          }
          return decimalOf(literal).floatValue();
        case VARCHAR:
          if (literal instanceof String) {
            return literal;
          }
          break;
        case CHAR:
          if (literal instanceof String) {
            // Padded as the stored values are; a longer literal is kept (it equals no value).
            String s = (String) literal;
            return TextCast.truncates(type, s) ? s : TextCast.toCharacter(type, s);
          }
          break;
        case TIMESTAMP_LTZ:
          if (literal instanceof java.time.Instant) {
            return literal;
          }
          if (literal instanceof LocalDateTime) {
            return ((LocalDateTime) literal).toInstant(java.time.ZoneOffset.UTC);
          }
          if (literal instanceof LocalDate) {
            return ((LocalDate) literal).atStartOfDay().toInstant(java.time.ZoneOffset.UTC);
          }
          if (literal instanceof String) {
            // Not truncated to the column's precision: a finer literal is compared exactly.
            return TextCast.toInstant((String) literal, 9);
          }
          break;
        case DOUBLE:
          if (literal instanceof Double) {
            return literal;
          }
          return decimalOf(literal).doubleValue();
        case DECIMAL:
          return decimalOf(literal);
        case BOOLEAN:
          if (literal instanceof Boolean) {
            return literal;
          }
          if (literal instanceof String) {
            String s = ((String) literal).trim().toLowerCase(java.util.Locale.ROOT);
            if (s.equals("true") || s.equals("false")) {
              return Boolean.parseBoolean(s);
            }
          }
          break;
        case STRING:
          if (literal instanceof String) {
            return literal;
          }
          break;
        case BYTES:
          if (literal instanceof byte[]) {
            return ((byte[]) literal).clone();
          }
          break;
        case DATE:
          if (literal instanceof LocalDate) {
            return literal;
          }
          if (literal instanceof String) {
            return LocalDate.parse(((String) literal).trim());
          }
          break;
        case TIMESTAMP:
          if (literal instanceof LocalDateTime) {
            return literal;
          }
          if (literal instanceof LocalDate) {
            return ((LocalDate) literal).atStartOfDay();
          }
          if (literal instanceof String) {
            String s = ((String) literal).trim();
            if (s.length() == 10) {
              return LocalDate.parse(s).atStartOfDay();
            }
            return LocalDateTime.parse(s.replace(' ', 'T'));
          }
          break;
        default:
          break;
      }
    } catch (ArithmeticException | DateTimeParseException | IllegalArgumentException e) {
      // Reported below.
    }
    throw new IllegalArgumentException(
        "The value "
            + describe(literal)
            + " does not fit column '"
            + field.name()
            + "' of type "
            + type
            + hint(type)
            + ".");
  }

  private static BigDecimal decimalOf(Object literal) {
    if (literal instanceof BigDecimal) {
      return (BigDecimal) literal;
    }
    if (literal instanceof Integer
        || literal instanceof Long
        || literal instanceof Short
        || literal instanceof Byte) {
      return BigDecimal.valueOf(((Number) literal).longValue());
    }
    if (literal instanceof BigInteger) {
      return new BigDecimal((BigInteger) literal);
    }
    if (literal instanceof Double || literal instanceof Float) {
      double d = ((Number) literal).doubleValue();
      if (Double.isFinite(d)) {
        return BigDecimal.valueOf(d);
      }
    }
    if (literal instanceof String) {
      return new BigDecimal(((String) literal).trim());
    }
    throw new NumberFormatException();
  }

  private static String describe(Object literal) {
    return literal instanceof String
        ? "'" + literal + "'"
        : literal instanceof byte[] ? "of " + ((byte[]) literal).length + " bytes" : "" + literal;
  }

  private static String hint(DataType type) {
    switch (type.root()) {
      case INT:
      case BIGINT:
      case TINYINT:
      case SMALLINT:
        return " (use a whole number in its range)";
      case TIMESTAMP_LTZ:
        return " (use '2024-05-01 10:00:00+02:00', or TIMESTAMP '2024-05-01 10:00:00' for UTC)";
      case DATE:
        return " (use DATE '2024-05-01')";
      case TIMESTAMP:
        return " (use TIMESTAMP '2024-05-01 10:00:00')";
      case STRING:
      case CHAR:
      case VARCHAR:
        return " (quote text: 'abc')";
      case BOOLEAN:
        return " (use TRUE or FALSE)";
      case BYTES:
        return " (use X'0a1b')";
      default:
        return " (use a number)";
    }
  }
}
