package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * Test-only reference: writes rows through parquet-mr's own {@code ParquetWriter} and record
 * consumer, with the settings {@link ParquetFileFormat} gives {@link ParquetRowWriter} (codec and
 * zstd level, row group and page size, dictionary pages of the page size, plain columns), so that
 * {@code ParquetRowWriterTest} can compare the engine's files and statistics with parquet-mr's on
 * the same rows. The engine's write path used this until {@link ParquetRowWriter} replaced it.
 */
final class ReferenceParquetWriter implements AutoCloseable {

  private final ParquetWriter<GenericRow> writer;

  private ReferenceParquetWriter(ParquetWriter<GenericRow> writer) {
    this.writer = writer;
  }

  /**
   * A new file at {@code path}, as {@code new ParquetFileFormat(compression, blockSize, pageSize,
   * plain)} would write it with parquet-mr's writer.
   */
  static ReferenceParquetWriter create(
      FileIO fileIO,
      Path path,
      RowType rowType,
      String compression,
      long blockSize,
      int pageSize,
      Set<String> plain)
      throws IOException {
    Configuration conf = new Configuration(false);
    conf.setInt(ParquetFileFormat.ZSTD_LEVEL_KEY, ParquetFileFormat.ZSTD_LEVEL);
    Builder builder =
        new Builder(new ParquetFileFormat.FileOutput(fileIO, path), rowType)
            .withConf(conf)
            .withWriteMode(ParquetFileWriter.Mode.CREATE)
            .withCompressionCodec(ParquetFileFormat.codecOf(compression))
            .withRowGroupSize(blockSize)
            .withPageSize(pageSize)
            .withDictionaryPageSize(pageSize);
    for (String column : plain) {
      builder = builder.withDictionaryEncoding(column, false);
    }
    return new ReferenceParquetWriter(builder.build());
  }

  void write(GenericRow row) throws IOException {
    writer.write(row);
  }

  @Override
  public void close() throws IOException {
    writer.close();
  }

  ParquetMetadata footer() {
    return writer.getFooter();
  }

  private static final class Builder extends ParquetWriter.Builder<GenericRow, Builder> {
    private final RowType rowType;

    Builder(OutputFile file, RowType rowType) {
      super(file);
      this.rowType = rowType;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<GenericRow> getWriteSupport(Configuration conf) {
      return new RowWriteSupport(rowType);
    }
  }

  /** Writes rows of one row type through parquet-mr's record consumer; one instance per file. */
  private static final class RowWriteSupport extends WriteSupport<GenericRow> {
    private final RowType rowType;
    private final MessageType schema;
    private final DataType[] types;
    private final String[] names;
    private RecordConsumer out;

    RowWriteSupport(RowType rowType) {
      this.rowType = rowType;
      this.schema = ParquetRows.schemaOf(rowType);
      this.types = new DataType[rowType.size()];
      this.names = new String[rowType.size()];
      for (int i = 0; i < types.length; i++) {
        types[i] = rowType.field(i).type();
        names[i] = rowType.field(i).name();
      }
    }

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(schema, Map.of());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.out = recordConsumer;
    }

    @Override
    public void write(GenericRow row) {
      // Checked before the record starts, so that a refused row leaves no partial record.
      for (int i = 0; i < types.length; i++) {
        if (row.get(i) == null && !types[i].nullable()) {
          DataField field = rowType.field(i);
          throw new IllegalArgumentException(
              "Column '"
                  + field.name()
                  + "' is "
                  + field.type()
                  + " but the row holds null: "
                  + row);
        }
      }
      out.startMessage();
      for (int i = 0; i < types.length; i++) {
        Object value = row.get(i);
        if (value != null) {
          out.startField(names[i], i);
          writeValue(types[i], value);
          out.endField(names[i], i);
        }
      }
      out.endMessage();
    }

    private void writeValue(DataType type, Object value) {
      switch (type.root()) {
        case INT:
          out.addInteger((Integer) value);
          break;
        case BIGINT:
          out.addLong((Long) value);
          break;
        case DOUBLE:
          out.addDouble((Double) value);
          break;
        case BOOLEAN:
          out.addBoolean((Boolean) value);
          break;
        case STRING:
          out.addBinary(Binary.fromString((String) value));
          break;
        case BYTES:
          out.addBinary(Binary.fromReusedByteArray((byte[]) value));
          break;
        case DECIMAL:
          BigInteger unscaled = ((BigDecimal) value).unscaledValue();
          if (type.precision() <= 9) {
            out.addInteger(unscaled.intValueExact());
          } else if (type.precision() <= 18) {
            out.addLong(unscaled.longValueExact());
          } else {
            out.addBinary(
                Binary.fromConstantByteArray(
                    fixedBytes(unscaled, ParquetRows.decimalBytes(type.precision()))));
          }
          break;
        case DATE:
          out.addInteger((int) ((LocalDate) value).toEpochDay());
          break;
        case TIMESTAMP:
          LocalDateTime t = (LocalDateTime) value;
          out.addLong(t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1_000);
          break;
        case TINYINT:
          out.addInteger((Byte) value);
          break;
        case SMALLINT:
          out.addInteger((Short) value);
          break;
        case FLOAT:
          out.addFloat((Float) value);
          break;
        case CHAR:
        case VARCHAR:
          out.addBinary(Binary.fromString((String) value));
          break;
        case TIMESTAMP_LTZ:
          out.addLong(InstantUnits.toLong((java.time.Instant) value, type.precision()));
          break;
        default:
          throw new IllegalArgumentException("Unsupported type " + type);
      }
    }

    /** Big-endian two's complement of {@code unscaled}, sign-extended to {@code length} bytes. */
    private static byte[] fixedBytes(BigInteger unscaled, int length) {
      byte[] minimal = unscaled.toByteArray();
      byte[] bytes = new byte[length];
      byte pad = (byte) (unscaled.signum() < 0 ? 0xFF : 0);
      int offset = length - minimal.length;
      for (int i = 0; i < offset; i++) {
        bytes[i] = pad;
      }
      System.arraycopy(minimal, 0, bytes, offset, minimal.length);
      return bytes;
    }
  }
}
