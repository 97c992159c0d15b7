package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.FieldStats;
import dev.lockstep.engine.predicate.StatsView;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.DataTypeRoot;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Maps a {@link RowType} to a Parquet message type, and Parquet's record API to {@link GenericRow}s
 * (rows are written by {@link ParquetRowWriter}).
 *
 * <p>Columns keep their names and their field ids; a nullable column is {@code OPTIONAL}, a NOT
 * NULL one {@code REQUIRED}. INT is {@code INT32}, BIGINT {@code INT64}, DOUBLE, BOOLEAN as such,
 * STRING {@code BINARY (STRING)}, BYTES {@code BINARY}, DATE {@code INT32 (DATE)}, TIMESTAMP {@code
 * INT64 (TIMESTAMP(MICROS, isAdjustedToUTC=false))} (a wall-clock time, as the engine's {@code
 * LocalDateTime}), DECIMAL(p, s) {@code INT32} for p ≤ 9, {@code INT64} for p ≤ 18 and {@code
 * FIXED_LEN_BYTE_ARRAY} of the fewest bytes that hold p digits above (unscaled two's complement,
 * big-endian), as Spark and Paimon write them. As Paimon's {@code ParquetSchemaConverter}: TINYINT
 * {@code INT32 (INTEGER(8, true))}, SMALLINT {@code INT32 (INTEGER(16, true))}, FLOAT {@code
 * FLOAT}, CHAR and VARCHAR {@code BINARY (STRING)}, TIMESTAMP_LTZ(p) {@code INT64
 * (TIMESTAMP(MILLIS, isAdjustedToUTC=true))} for p ≤ 3 and {@code MICROS} for p ≤ 6.
 */
final class ParquetRows {

  private static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

  private ParquetRows() {}

  static MessageType schemaOf(RowType rowType) {
    List<Type> fields = new ArrayList<>(rowType.size());
    for (DataField field : rowType.fields()) {
      fields.add(typeOf(field.type()).id(field.id()).named(field.name()));
    }
    return new MessageType("row", fields);
  }

  private static Types.PrimitiveBuilder<PrimitiveType> typeOf(DataType type) {
    Type.Repetition repetition =
        type.nullable() ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
    switch (type.root()) {
      case INT:
        return Types.primitive(PrimitiveTypeName.INT32, repetition);
      case BIGINT:
        return Types.primitive(PrimitiveTypeName.INT64, repetition);
      case DOUBLE:
        return Types.primitive(PrimitiveTypeName.DOUBLE, repetition);
      case BOOLEAN:
        return Types.primitive(PrimitiveTypeName.BOOLEAN, repetition);
      case STRING:
        return Types.primitive(PrimitiveTypeName.BINARY, repetition)
            .as(LogicalTypeAnnotation.stringType());
      case BYTES:
        return Types.primitive(PrimitiveTypeName.BINARY, repetition);
      case DECIMAL:
        LogicalTypeAnnotation decimal =
            LogicalTypeAnnotation.decimalType(type.scale(), type.precision());
        if (type.precision() <= 9) {
          return Types.primitive(PrimitiveTypeName.INT32, repetition).as(decimal);
        }
        if (type.precision() <= 18) {
          return Types.primitive(PrimitiveTypeName.INT64, repetition).as(decimal);
        }
        return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
            .length(decimalBytes(type.precision()))
            .as(decimal);
      case DATE:
        return Types.primitive(PrimitiveTypeName.INT32, repetition)
            .as(LogicalTypeAnnotation.dateType());
      case TIMESTAMP:
        return Types.primitive(PrimitiveTypeName.INT64, repetition)
            .as(LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MICROS));
      case TINYINT:
        return Types.primitive(PrimitiveTypeName.INT32, repetition)
            .as(LogicalTypeAnnotation.intType(8, true));
      case SMALLINT:
        return Types.primitive(PrimitiveTypeName.INT32, repetition)
            .as(LogicalTypeAnnotation.intType(16, true));
      case FLOAT:
        return Types.primitive(PrimitiveTypeName.FLOAT, repetition);
      case CHAR:
      case VARCHAR:
        return Types.primitive(PrimitiveTypeName.BINARY, repetition)
            .as(LogicalTypeAnnotation.stringType());
      case TIMESTAMP_LTZ:
        return Types.primitive(PrimitiveTypeName.INT64, repetition)
            .as(
                LogicalTypeAnnotation.timestampType(
                    true,
                    InstantUnits.millis(type.precision())
                        ? LogicalTypeAnnotation.TimeUnit.MILLIS
                        : LogicalTypeAnnotation.TimeUnit.MICROS));
      default:
        throw new IllegalArgumentException("Unsupported type " + type);
    }
  }

  /** The fewest bytes whose two's complement holds every unscaled value of {@code precision}. */
  static int decimalBytes(int precision) {
    return (BigInteger.TEN.pow(precision).subtract(BigInteger.ONE).bitLength() + 1 + 7) / 8;
  }

  /**
   * Checks that a file's columns are, position by position, of the types {@code rowType} maps to
   * (names may differ: files are read by position, as the Avro files are).
   *
   * @throws IOException naming the file and the first column that differs
   */
  static void checkReadable(MessageType fileSchema, RowType rowType, Path path) throws IOException {
    MessageType expected = schemaOf(rowType);
    if (fileSchema.getFieldCount() != expected.getFieldCount()) {
      throw new IOException(
          "Parquet file "
              + path
              + " has "
              + fileSchema.getFieldCount()
              + " columns where its row type "
              + rowType
              + " has "
              + expected.getFieldCount()
              + "; it was not written for this table.");
    }
    for (int i = 0; i < expected.getFieldCount(); i++) {
      Type file = fileSchema.getType(i);
      Type want = expected.getType(i);
      if (!file.isPrimitive()
          || file.asPrimitiveType().getPrimitiveTypeName()
              != want.asPrimitiveType().getPrimitiveTypeName()
          || file.asPrimitiveType().getTypeLength() != want.asPrimitiveType().getTypeLength()
          || !java.util.Objects.equals(
              file.getLogicalTypeAnnotation(), want.getLogicalTypeAnnotation())) {
        throw new IOException(
            "Parquet file "
                + path
                + ": column "
                + i
                + " is "
                + file
                + " where the table's column '"
                + rowType.field(i).name()
                + "' needs "
                + want
                + ".");
      }
    }
  }

  /** The positions of the columns read: those {@code columns} marks, all when it is null. */
  static int[] positions(RowType rowType, boolean[] columns) {
    int[] all = new int[rowType.size()];
    int n = 0;
    for (int i = 0; i < all.length; i++) {
      if (columns == null || columns[i]) {
        all[n++] = i;
      }
    }
    return java.util.Arrays.copyOf(all, n);
  }

  /** The file's columns at {@code positions}, as Parquet's requested schema. */
  static MessageType requested(MessageType fileSchema, int[] positions) {
    List<Type> fields = new ArrayList<>();
    for (int position : positions) {
      fields.add(fileSchema.getType(position));
    }
    return new MessageType(fileSchema.getName(), fields);
  }

  /**
   * The statistics a row group's footer holds for the columns of {@code rowType} (matched by
   * position, as files are read): null counts, and minimums and maximums converted to the columns'
   * Java values. DOUBLE and FLOAT columns give no bounds (Parquet orders NaN and -0.0 differently
   * from {@link dev.lockstep.engine.predicate.Values}); a column whose statistics are missing is
   * unknown.
   */
  static StatsView statsOf(BlockMetaData block, RowType rowType) {
    FieldStats[] fields = new FieldStats[rowType.size()];
    List<ColumnChunkMetaData> columns = block.getColumns();
    for (int i = 0; i < fields.length && i < columns.size(); i++) {
      Statistics<?> stats = columns.get(i).getStatistics();
      if (stats == null || stats.isEmpty()) {
        continue;
      }
      Long nulls = stats.isNumNullsSet() ? stats.getNumNulls() : null;
      Object min = null;
      Object max = null;
      DataType type = rowType.field(i).type();
      if (stats.hasNonNullValue()
          && type.root() != DataTypeRoot.DOUBLE
          && type.root() != DataTypeRoot.FLOAT) {
        min = valueOf(type, stats.genericGetMin());
        max = valueOf(type, stats.genericGetMax());
      }
      fields[i] = new FieldStats(min, max, nulls);
    }
    return StatsView.of(block.getRowCount(), fields);
  }

  static Object valueOf(DataType type, Object parquet) {
    switch (type.root()) {
      case STRING:
      case CHAR:
      case VARCHAR:
        return ((Binary) parquet).toStringUsingUTF8();
      case TINYINT:
        return ((Integer) parquet).byteValue();
      case SMALLINT:
        return ((Integer) parquet).shortValue();
      case TIMESTAMP_LTZ:
        return InstantUnits.fromLong((Long) parquet, type.precision());
      case BYTES:
        return ((Binary) parquet).getBytes();
      case DECIMAL:
        if (parquet instanceof Integer) {
          return BigDecimal.valueOf((Integer) parquet, type.scale());
        }
        if (parquet instanceof Long) {
          return BigDecimal.valueOf((Long) parquet, type.scale());
        }
        return new BigDecimal(new BigInteger(((Binary) parquet).getBytes()), type.scale());
      case DATE:
        return LocalDate.ofEpochDay((Integer) parquet);
      case TIMESTAMP:
        return EPOCH.plus((Long) parquet, ChronoUnit.MICROS);
      default:
        return parquet;
    }
  }

  /** Builds one {@link GenericRow} per record; one instance per file. */
  static final class Materializer extends RecordMaterializer<GenericRow> {
    private final Root root;

    Materializer(RowType rowType) {
      this(rowType, positions(rowType, null));
    }

    /** Rows of {@code rowType}'s width, with the columns at {@code positions} read. */
    Materializer(RowType rowType, int[] positions) {
      this.root = new Root(rowType, positions);
    }

    @Override
    public GenericRow getCurrentRecord() {
      return GenericRow.wrap(root.values);
    }

    @Override
    public GroupConverter getRootConverter() {
      return root;
    }
  }

  private static final class Root extends GroupConverter {
    private final Converter[] converters;
    private final int width;
    private Object[] values;

    Root(RowType rowType, int[] positions) {
      width = rowType.size();
      converters = new Converter[positions.length];
      for (int i = 0; i < converters.length; i++) {
        converters[i] = converterOf(rowType.field(positions[i]).type(), positions[i]);
      }
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return converters[fieldIndex];
    }

    @Override
    public void start() {
      values = new Object[width];
    }

    @Override
    public void end() {}

    private Converter converterOf(DataType type, int index) {
      switch (type.root()) {
        case INT:
        case BIGINT:
        case DOUBLE:
        case BOOLEAN:
          return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
              values[index] = value;
            }

            @Override
            public void addLong(long value) {
              values[index] = value;
            }

            @Override
            public void addDouble(double value) {
              values[index] = value;
            }

            @Override
            public void addBoolean(boolean value) {
              values[index] = value;
            }
          };
        case STRING:
        case CHAR:
        case VARCHAR:
          return new PrimitiveConverter() {
            @Override
            public void addBinary(Binary value) {
              values[index] = value.toStringUsingUTF8();
            }
          };
        case TINYINT:
          return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
              values[index] = (byte) value;
            }
          };
        case SMALLINT:
          return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
              values[index] = (short) value;
            }
          };
        case FLOAT:
          return new PrimitiveConverter() {
            @Override
            public void addFloat(float value) {
              values[index] = value;
            }
          };
        case TIMESTAMP_LTZ:
          int precision = type.precision();
          return new PrimitiveConverter() {
            @Override
            public void addLong(long value) {
              values[index] = InstantUnits.fromLong(value, precision);
            }
          };
        case BYTES:
          return new PrimitiveConverter() {
            @Override
            public void addBinary(Binary value) {
              // A copy: dictionary pages hand out the same Binary for every row of a value.
              values[index] = value.getBytes().clone();
            }
          };
        case DECIMAL:
          int scale = type.scale();
          return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
              values[index] = BigDecimal.valueOf(value, scale);
            }

            @Override
            public void addLong(long value) {
              values[index] = BigDecimal.valueOf(value, scale);
            }

            @Override
            public void addBinary(Binary value) {
              values[index] = new BigDecimal(new BigInteger(value.getBytes()), scale);
            }
          };
        case DATE:
          return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
              values[index] = LocalDate.ofEpochDay(value);
            }
          };
        case TIMESTAMP:
          return new PrimitiveConverter() {
            @Override
            public void addLong(long value) {
              values[index] = EPOCH.plus(value, ChronoUnit.MICROS);
            }
          };
        default:
          throw new IllegalArgumentException("Unsupported type " + type);
      }
    }
  }
}
