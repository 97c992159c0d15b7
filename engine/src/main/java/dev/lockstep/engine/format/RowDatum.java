package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;
import org.apache.avro.util.Utf8;

/**
 * Avro binary encoding of {@link GenericRow}s straight from and to their Java values, in the layout
 * {@link AvroRows#schemaOf} describes: no intermediate {@code GenericRecord}, no per-value schema
 * dispatch. Files are byte for byte what Avro's generic writer produces for the same schema, and
 * any Avro reader reads them.
 *
 * <p>Reading takes the fast path when the file's writer schema equals the schema of the expected
 * row type (every file this engine writes); any other writer schema goes through Avro's schema
 * resolution ({@link GenericDatumReader}), so a file from another writer is still read correctly.
 */
final class RowDatum {

  private static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

  private RowDatum() {}

  private static DataType[] typesOf(RowType rowType) {
    DataType[] types = new DataType[rowType.size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = rowType.field(i).type();
    }
    return types;
  }

  private static boolean[] nullability(DataType[] types) {
    boolean[] nullable = new boolean[types.length];
    for (int i = 0; i < types.length; i++) {
      nullable[i] = types[i].nullable();
    }
    return nullable;
  }

  /** Writes rows of one row type; one instance per file, not thread-safe. */
  static final class Writer implements DatumWriter<GenericRow> {
    private final RowType rowType;
    private final DataType[] types;
    private final boolean[] nullable;

    Writer(RowType rowType) {
      this.rowType = rowType;
      this.types = typesOf(rowType);
      this.nullable = nullability(types);
    }

    @Override
    public void setSchema(Schema schema) {
      // The schema is derived from the row type, which this writer already holds.
    }

    @Override
    public void write(GenericRow row, Encoder out) throws IOException {
      for (int i = 0; i < types.length; i++) {
        Object value = row.get(i);
        if (nullable[i]) {
          if (value == null) {
            out.writeIndex(0);
            continue;
          }
          out.writeIndex(1);
        } else if (value == null) {
          DataField field = rowType.field(i);
          throw new IllegalArgumentException(
              "Column '"
                  + field.name()
                  + "' is "
                  + field.type()
                  + " but the row holds null: "
                  + row);
        }
        writeValue(types[i], value, out);
      }
    }

    private static void writeValue(DataType type, Object value, Encoder out) throws IOException {
      switch (type.root()) {
        case INT:
          out.writeInt((Integer) value);
          break;
        case BIGINT:
          out.writeLong((Long) value);
          break;
        case DOUBLE:
          out.writeDouble((Double) value);
          break;
        case BOOLEAN:
          out.writeBoolean((Boolean) value);
          break;
        case STRING:
          out.writeString((String) value);
          break;
        case BYTES:
          out.writeBytes((byte[]) value);
          break;
        case DECIMAL:
          out.writeBytes(((BigDecimal) value).unscaledValue().toByteArray());
          break;
        case DATE:
          out.writeInt((int) ((LocalDate) value).toEpochDay());
          break;
        case TIMESTAMP:
          LocalDateTime t = (LocalDateTime) value;
          out.writeLong(t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1_000);
          break;
        case TINYINT:
          out.writeInt((Byte) value);
          break;
        case SMALLINT:
          out.writeInt((Short) value);
          break;
        case FLOAT:
          out.writeFloat((Float) value);
          break;
        case CHAR:
        case VARCHAR:
          out.writeString((String) value);
          break;
        case TIMESTAMP_LTZ:
          out.writeLong(InstantUnits.toLong((java.time.Instant) value, type.precision()));
          break;
        default:
          throw new IllegalArgumentException("Unsupported type " + type);
      }
    }
  }

  /** Reads rows of one row type; one instance per file, not thread-safe. */
  static final class Reader implements DatumReader<GenericRow> {
    private final RowType rowType;
    private final DataType[] types;
    private final boolean[] nullable;
    private final Utf8 scratch = new Utf8();

    /** Set when the file was written with another schema: Avro resolves it. */
    private GenericDatumReader<GenericRecord> resolving;

    private GenericRecord reuse;

    /** The columns decoded; the others are skipped. {@code null}: all. */
    private final boolean[] read;

    Reader(RowType rowType) {
      this(rowType, null);
    }

    Reader(RowType rowType, boolean[] read) {
      this.rowType = rowType;
      this.types = typesOf(rowType);
      this.nullable = nullability(types);
      this.read = read;
    }

    @Override
    public void setSchema(Schema writerSchema) {
      Schema expected = AvroRows.schemaOf(rowType);
      resolving =
          writerSchema.equals(expected)
              ? null
              : new GenericDatumReader<>(writerSchema, AvroRows.resolvingSchemaOf(rowType));
    }

    /** Whether the file's schema differed from the expected one (for tests). */
    boolean resolving() {
      return resolving != null;
    }

    @Override
    public GenericRow read(GenericRow ignored, Decoder in) throws IOException {
      if (resolving != null) {
        reuse = resolving.read(null, in);
        return AvroRows.fromRecord(rowType, reuse);
      }
      Object[] values = new Object[types.length];
      for (int i = 0; i < types.length; i++) {
        if (nullable[i]) {
          int branch = in.readIndex();
          if (branch == 0) {
            continue;
          }
          if (branch != 1) {
            throw new IOException(
                "Column '"
                    + rowType.field(i).name()
                    + "': union branch "
                    + branch
                    + " in a [null, value] union; the file is corrupt.");
          }
        }
        if (read == null || read[i]) {
          values[i] = readValue(types[i], in);
        } else {
          skipValue(types[i], in);
        }
      }
      return GenericRow.wrap(values);
    }

    private Object readValue(DataType type, Decoder in) throws IOException {
      switch (type.root()) {
        case INT:
          return in.readInt();
        case BIGINT:
          return in.readLong();
        case DOUBLE:
          return in.readDouble();
        case BOOLEAN:
          return in.readBoolean();
        case STRING:
        case CHAR:
        case VARCHAR:
          Utf8 utf8 = in.readString(scratch);
          return new String(utf8.getBytes(), 0, utf8.getByteLength(), StandardCharsets.UTF_8);
        case BYTES:
          return bytes(in);
        case DECIMAL:
          return new BigDecimal(new BigInteger(bytes(in)), type.scale());
        case DATE:
          return LocalDate.ofEpochDay(in.readInt());
        case TIMESTAMP:
          return EPOCH.plus(in.readLong(), ChronoUnit.MICROS);
        case TINYINT:
          return (byte) in.readInt();
        case SMALLINT:
          return (short) in.readInt();
        case FLOAT:
          return in.readFloat();
        case TIMESTAMP_LTZ:
          return InstantUnits.fromLong(in.readLong(), type.precision());
        default:
          throw new IllegalArgumentException("Unsupported type " + type);
      }
    }

    private static void skipValue(DataType type, Decoder in) throws IOException {
      switch (type.root()) {
        case INT:
        case DATE:
        case TINYINT:
        case SMALLINT:
          in.readInt();
          break;
        case BIGINT:
        case TIMESTAMP:
        case TIMESTAMP_LTZ:
          in.readLong();
          break;
        case FLOAT:
          in.readFloat();
          break;
        case DOUBLE:
          in.readDouble();
          break;
        case BOOLEAN:
          in.readBoolean();
          break;
        case STRING:
        case CHAR:
        case VARCHAR:
          in.skipString();
          break;
        case BYTES:
        case DECIMAL:
          in.skipBytes();
          break;
        default:
          throw new IllegalArgumentException("Unsupported type " + type);
      }
    }

    private static byte[] bytes(Decoder in) throws IOException {
      java.nio.ByteBuffer buffer = in.readBytes(null);
      byte[] bytes = new byte[buffer.remaining()];
      buffer.get(bytes);
      return bytes;
    }
  }
}
