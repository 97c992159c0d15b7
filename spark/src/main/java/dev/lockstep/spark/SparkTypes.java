package dev.lockstep.spark;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.engine.types.TextCast;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VarcharType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Lockstep column types and Spark SQL types, both ways, and row values between the engine's Java
 * objects and Spark's internal representation.
 *
 * <pre>
 * INT      IntegerType        BIGINT     LongType       DOUBLE  DoubleType
 * BOOLEAN  BooleanType        STRING     StringType     BYTES   BinaryType
 * DECIMAL  DecimalType(p, s)  DATE       DateType       TIMESTAMP  TimestampNTZType (micros)
 * TINYINT  ByteType           SMALLINT   ShortType      FLOAT   FloatType
 * CHAR(n)  StringType         VARCHAR(n) StringType     TIMESTAMP_LTZ(p)  TimestampType
 * </pre>
 *
 * As Paimon's Spark integration: CHAR(n) and VARCHAR(n) are strings to Spark (a Spark {@code
 * CHAR(n)}/{@code VARCHAR(n)} column, or a string column carrying Spark's char/varchar metadata,
 * creates the engine's CHAR(n)/VARCHAR(n)); values written are cast to the length (cut, and CHAR
 * blank-padded); Spark's TIMESTAMP (an instant, microseconds) is TIMESTAMP_LTZ(6), and every
 * TIMESTAMP_LTZ(p) reads as it. Every other Spark type (intervals, arrays, maps, structs, ...) is
 * refused with a message naming the column and the closest type.
 */
final class SparkTypes {

  private SparkTypes() {}

  static StructType toSpark(RowType rowType) {
    List<StructField> fields = new ArrayList<>();
    for (DataField f : rowType.fields()) {
      fields.add(DataTypes.createStructField(f.name(), toSpark(f.type()), f.type().nullable()));
    }
    return DataTypes.createStructType(fields);
  }

  static org.apache.spark.sql.types.DataType toSpark(DataType type) {
    switch (type.root()) {
      case INT:
        return DataTypes.IntegerType;
      case BIGINT:
        return DataTypes.LongType;
      case DOUBLE:
        return DataTypes.DoubleType;
      case BOOLEAN:
        return DataTypes.BooleanType;
      case STRING:
        return DataTypes.StringType;
      case BYTES:
        return DataTypes.BinaryType;
      case DECIMAL:
        return DataTypes.createDecimalType(type.precision(), type.scale());
      case DATE:
        return DataTypes.DateType;
      case TIMESTAMP:
        return DataTypes.TimestampNTZType;
      case TINYINT:
        return DataTypes.ByteType;
      case SMALLINT:
        return DataTypes.ShortType;
      case FLOAT:
        return DataTypes.FloatType;
      case CHAR:
      case VARCHAR:
        return DataTypes.StringType;
      case TIMESTAMP_LTZ:
        return DataTypes.TimestampType;
      default:
        throw new IllegalStateException("No Spark type for " + type);
    }
  }

  /**
   * The Lockstep type of a Spark column.
   *
   * @throws IllegalArgumentException for a type Lockstep does not have, naming the column and the
   *     fix
   */
  static DataType toLockstep(
      String column, org.apache.spark.sql.types.DataType type, boolean nullable) {
    return toLockstep(column, type, nullable, Metadata.empty());
  }

  /** Spark's metadata key of the declared CHAR(n)/VARCHAR(n) of a string column. */
  private static final String CHAR_VARCHAR = "__CHAR_VARCHAR_TYPE_STRING";

  /**
   * The Lockstep type of a Spark column, with the column's metadata (where Spark keeps a declared
   * CHAR(n) or VARCHAR(n) of a column it hands over as a string).
   */
  static DataType toLockstep(
      String column, org.apache.spark.sql.types.DataType type, boolean nullable, Metadata meta) {
    DataType t;
    if (type instanceof StringType && meta.contains(CHAR_VARCHAR)) {
      t = DataType.parse(meta.getString(CHAR_VARCHAR));
    } else if (type instanceof CharType c) {
      t = DataType.charType(c.length());
    } else if (type instanceof VarcharType v) {
      t = DataType.varchar(v.length());
    } else if (type instanceof ByteType) {
      t = DataType.tinyint();
    } else if (type instanceof ShortType) {
      t = DataType.smallint();
    } else if (type instanceof FloatType) {
      t = DataType.floatType();
    } else if (type instanceof TimestampType) {
      t = DataType.timestampLtz(DataType.MAX_TIMESTAMP_LTZ_PRECISION);
    } else if (type instanceof IntegerType) {
      t = DataType.intType();
    } else if (type instanceof LongType) {
      t = DataType.bigint();
    } else if (type instanceof DoubleType) {
      t = DataType.doubleType();
    } else if (type instanceof BooleanType) {
      t = DataType.booleanType();
    } else if (type instanceof StringType) {
      t = DataType.string();
    } else if (type instanceof BinaryType) {
      t = DataType.bytes();
    } else if (type instanceof DecimalType d) {
      t = DataType.decimal(d.precision(), d.scale());
    } else if (type instanceof DateType) {
      t = DataType.date();
    } else if (type instanceof TimestampNTZType) {
      t = DataType.timestamp();
    } else {
      throw new IllegalArgumentException(
          "Column '"
              + column
              + "' has Spark type "
              + type.sql()
              + ", which Lockstep tables do not have; use "
              + closest(type)
              + " (Lockstep types: TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, BOOLEAN, STRING,"
              + " CHAR(n), VARCHAR(n), BINARY, DECIMAL(p, s), DATE, TIMESTAMP_NTZ, TIMESTAMP)");
    }
    return nullable ? t : t.notNull();
  }

  private static String closest(org.apache.spark.sql.types.DataType type) {
    return "one of the Lockstep types, or STRING holding an encoded value";
  }

  /** Converts Spark's internal row (in the table's column order) to an engine row. */
  static GenericRow toLockstep(InternalRow row, RowType rowType) {
    Object[] values = new Object[rowType.size()];
    for (int i = 0; i < values.length; i++) {
      if (row.isNullAt(i)) {
        continue;
      }
      DataType type = rowType.field(i).type();
      switch (type.root()) {
        case INT:
          values[i] = row.getInt(i);
          break;
        case BIGINT:
          values[i] = row.getLong(i);
          break;
        case DOUBLE:
          values[i] = row.getDouble(i);
          break;
        case BOOLEAN:
          values[i] = row.getBoolean(i);
          break;
        case STRING:
          values[i] = row.getUTF8String(i).toString();
          break;
        case BYTES:
          values[i] = row.getBinary(i);
          break;
        case DECIMAL:
          values[i] =
              row.getDecimal(i, type.precision(), type.scale())
                  .toJavaBigDecimal()
                  .setScale(type.scale());
          break;
        case DATE:
          values[i] = LocalDate.ofEpochDay(row.getInt(i));
          break;
        case TIMESTAMP:
          values[i] = fromMicros(row.getLong(i));
          break;
        case TINYINT:
          values[i] = row.getByte(i);
          break;
        case SMALLINT:
          values[i] = row.getShort(i);
          break;
        case FLOAT:
          values[i] = row.getFloat(i);
          break;
        case CHAR:
        case VARCHAR:
          values[i] = TextCast.toCharacter(type, row.getUTF8String(i).toString());
          break;
        case TIMESTAMP_LTZ:
          values[i] = TextCast.truncate(instantOfMicros(row.getLong(i)), type.precision());
          break;
        default:
          throw new IllegalStateException("Unhandled type " + type);
      }
    }
    return GenericRow.wrap(values);
  }

  /** Converts engine values of the given types to a Spark internal row. */
  static InternalRow toSpark(GenericRow row, DataType[] types) {
    Object[] values = new Object[types.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = toSparkValue(row.get(i), types[i]);
    }
    return new GenericInternalRow(values);
  }

  static Object toSparkValue(Object value, DataType type) {
    if (value == null) {
      return null;
    }
    switch (type.root()) {
      case STRING:
      case CHAR:
      case VARCHAR:
        return UTF8String.fromString((String) value);
      case TIMESTAMP_LTZ:
        Instant instant = (Instant) value;
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
      case DECIMAL:
        return Decimal.apply((BigDecimal) value, type.precision(), type.scale());
      case DATE:
        return (int) ((LocalDate) value).toEpochDay();
      case TIMESTAMP:
        return toMicros((LocalDateTime) value);
      default:
        return value;
    }
  }

  /** A Spark {@code Filter} literal (external Java type) as the engine's value for a column. */
  static Object literal(Object value, DataType type) {
    if (value == null) {
      return null;
    }
    switch (type.root()) {
      case INT:
        return value instanceof Number n ? n.intValue() : value;
      case BIGINT:
        return value instanceof Number n ? n.longValue() : value;
      case DOUBLE:
        return value instanceof Number n ? n.doubleValue() : value;
      case DECIMAL:
        if (value instanceof BigDecimal b) {
          return b;
        }
        return value instanceof Number n ? new BigDecimal(n.toString()) : value;
      case DATE:
        if (value instanceof java.sql.Date d) {
          return d.toLocalDate();
        }
        return value;
      case STRING:
      case CHAR:
      case VARCHAR:
        return value instanceof UTF8String u ? u.toString() : value;
      case TIMESTAMP_LTZ:
        if (value instanceof java.sql.Timestamp ts) {
          return ts.toInstant();
        }
        return value;
      default:
        return value;
    }
  }

  static long toMicros(LocalDateTime t) {
    return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1_000;
  }

  static Instant instantOfMicros(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  static LocalDateTime fromMicros(long micros) {
    long seconds = Math.floorDiv(micros, 1_000_000L);
    int nanos = (int) Math.floorMod(micros, 1_000_000L) * 1_000;
    return LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
  }
}
