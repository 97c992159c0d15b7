package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * Maps a {@link RowType} to an Avro record schema, and records Avro resolved from another writer
 * schema back to rows ({@link RowDatum} encodes and decodes rows directly otherwise).
 *
 * <p>Avro field names are positional ({@code f0}, {@code f1}, ...) so that any column name is
 * allowed; the column name is kept in the field's doc. DECIMAL is Avro {@code bytes/decimal}
 * (unscaled two's complement), DATE {@code int/date}, TIMESTAMP {@code long/timestamp-micros} in
 * UTC wall-clock terms, TINYINT and SMALLINT {@code int}, FLOAT {@code float}, CHAR and VARCHAR
 * {@code string}, TIMESTAMP_LTZ(p) {@code long/local-timestamp-millis} for p ≤ 3 and {@code
 * long/local-timestamp-micros} above (Paimon's mapping), nullable columns a union with {@code
 * null}.
 */
final class AvroRows {

  private static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

  private AvroRows() {}

  static Schema schemaOf(RowType rowType) {
    return schemaOf(rowType, false);
  }

  /**
   * The schema that files of another writer schema are resolved to: {@link #schemaOf}, with NULL as
   * the default of every nullable column, so that a file written before a nullable column was added
   * reads that column as NULL (files are written with {@link #schemaOf}, without defaults).
   */
  static Schema resolvingSchemaOf(RowType rowType) {
    return schemaOf(rowType, true);
  }

  private static Schema schemaOf(RowType rowType, boolean nullDefaults) {
    List<Schema.Field> fields = new ArrayList<>();
    for (int i = 0; i < rowType.size(); i++) {
      DataField field = rowType.field(i);
      Schema type = typeOf(field.type());
      if (field.type().nullable()) {
        type = Schema.createUnion(Schema.create(Schema.Type.NULL), type);
      }
      fields.add(
          nullDefaults && field.type().nullable()
              ? new Schema.Field("f" + i, type, field.name(), Schema.Field.NULL_DEFAULT_VALUE)
              : new Schema.Field("f" + i, type, field.name()));
    }
    return Schema.createRecord("row", null, "dev.lockstep.engine", false, fields);
  }

  private static Schema typeOf(DataType type) {
    switch (type.root()) {
      case INT:
        return Schema.create(Schema.Type.INT);
      case BIGINT:
        return Schema.create(Schema.Type.LONG);
      case DOUBLE:
        return Schema.create(Schema.Type.DOUBLE);
      case BOOLEAN:
        return Schema.create(Schema.Type.BOOLEAN);
      case STRING:
        return Schema.create(Schema.Type.STRING);
      case BYTES:
        return Schema.create(Schema.Type.BYTES);
      case DECIMAL:
        return LogicalTypes.decimal(type.precision(), type.scale())
            .addToSchema(Schema.create(Schema.Type.BYTES));
      case DATE:
        return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
      case TIMESTAMP:
        return LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case TINYINT:
      case SMALLINT:
        return Schema.create(Schema.Type.INT);
      case FLOAT:
        return Schema.create(Schema.Type.FLOAT);
      case CHAR:
      case VARCHAR:
        return Schema.create(Schema.Type.STRING);
      case TIMESTAMP_LTZ:
        // Paimon's mapping (AvroSchemaConverter), local-timestamp-* although the value is an
        // instant, so that Paimon's readers take these files.
        return (InstantUnits.millis(type.precision())
                ? LogicalTypes.localTimestampMillis()
                : LogicalTypes.localTimestampMicros())
            .addToSchema(Schema.create(Schema.Type.LONG));
      default:
        throw new IllegalArgumentException("Unsupported type " + type);
    }
  }

  static GenericRow fromRecord(RowType rowType, GenericRecord record) {
    Object[] values = new Object[rowType.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = fromAvro(rowType.field(i).type(), record.get(i));
    }
    return GenericRow.wrap(values);
  }

  private static Object fromAvro(DataType type, Object value) {
    if (value == null) {
      return null;
    }
    switch (type.root()) {
      case STRING:
      case CHAR:
      case VARCHAR:
        return value.toString();
      case TINYINT:
        return ((Integer) value).byteValue();
      case SMALLINT:
        return ((Integer) value).shortValue();
      case TIMESTAMP_LTZ:
        return InstantUnits.fromLong((Long) value, type.precision());
      case BYTES:
        return bytesOf((ByteBuffer) value);
      case DECIMAL:
        return new BigDecimal(new BigInteger(bytesOf((ByteBuffer) value)), type.scale());
      case DATE:
        return LocalDate.ofEpochDay((Integer) value);
      case TIMESTAMP:
        return EPOCH.plus((Long) value, ChronoUnit.MICROS);
      default:
        return value;
    }
  }

  private static byte[] bytesOf(ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return bytes;
  }
}
