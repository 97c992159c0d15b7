package dev.lockstep.engine.format;

import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.factory.DefaultValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * PLAIN encoding of INT32, INT64, FLOAT, DOUBLE and BINARY pages into one growing array, for the
 * columns a file writes without a dictionary; every other column (and every dictionary column, with
 * its plain fallback) gets parquet-mr's own writer. The bytes are PLAIN's, as parquet-mr's {@code
 * PlainValuesWriter} writes them (little-endian values, a BINARY value as its 4-byte little-endian
 * length and its bytes); that writer puts each byte of an INT32 or an INT64 through a
 * bounds-checked {@code ByteBuffer} of a slab list, a cost per value the profile of the ingest
 * showed.
 */
final class ParquetPlainValues extends ValuesWriter {

  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Bytes of a new writer's array (it doubles as needed and keeps its size across pages). */
  static final int INITIAL_BYTES = 64 * 1024;

  private byte[] buffer;
  private int length;

  /** {@link Binary#writeTo(OutputStream)} appends a value's bytes through this. */
  private final OutputStream sink =
      new OutputStream() {
        @Override
        public void write(int b) {
          ensure(1);
          buffer[length++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
          ensure(len);
          System.arraycopy(b, off, buffer, length, len);
          length += len;
        }
      };

  ParquetPlainValues(int initialBytes) {
    this.buffer = new byte[initialBytes];
  }

  private void ensure(int more) {
    if (length + more > buffer.length) {
      long wanted = Math.max((long) buffer.length * 2, (long) length + more);
      if (wanted > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("A Parquet page of more than 2 GB");
      }
      buffer = java.util.Arrays.copyOf(buffer, (int) wanted);
    }
  }

  @Override
  public void writeInteger(int v) {
    ensure(4);
    INT.set(buffer, length, v);
    length += 4;
  }

  @Override
  public void writeLong(long v) {
    ensure(8);
    LONG.set(buffer, length, v);
    length += 8;
  }

  @Override
  public void writeFloat(float v) {
    writeInteger(Float.floatToIntBits(v));
  }

  @Override
  public void writeDouble(double v) {
    writeLong(Double.doubleToLongBits(v));
  }

  @Override
  public void writeBytes(Binary v) {
    writeInteger(v.length());
    try {
      v.writeTo(sink);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e); // the sink never throws
    }
  }

  @Override
  public long getBufferedSize() {
    return length;
  }

  @Override
  public BytesInput getBytes() {
    // Read (compressed or copied) by the page writer before reset() lets the array be reused.
    return BytesInput.from(buffer, 0, length);
  }

  @Override
  public Encoding getEncoding() {
    return Encoding.PLAIN;
  }

  @Override
  public void reset() {
    length = 0;
  }

  @Override
  public void close() {
    length = 0;
    buffer = new byte[0];
  }

  @Override
  public long getAllocatedSize() {
    return buffer.length;
  }

  @Override
  public String memUsageString(String prefix) {
    return prefix + " PLAIN " + length + " of " + buffer.length + " bytes";
  }

  /**
   * parquet-mr's values writers, but {@link ParquetPlainValues} for the PLAIN INT32, INT64, FLOAT,
   * DOUBLE and BINARY columns (those without a dictionary) of a format-1.0 file.
   */
  static final class Factory implements ValuesWriterFactory {
    private final DefaultValuesWriterFactory parquet = new DefaultValuesWriterFactory();
    private ParquetProperties props;

    @Override
    public void initialize(ParquetProperties properties) {
      this.props = properties;
      parquet.initialize(properties);
    }

    @Override
    public ValuesWriter newValuesWriter(ColumnDescriptor descriptor) {
      PrimitiveTypeName type = descriptor.getPrimitiveType().getPrimitiveTypeName();
      boolean handled =
          type == PrimitiveTypeName.INT32
              || type == PrimitiveTypeName.INT64
              || type == PrimitiveTypeName.FLOAT
              || type == PrimitiveTypeName.DOUBLE
              || type == PrimitiveTypeName.BINARY;
      if (handled
          && !props.isDictionaryEnabled(descriptor)
          && !props.isByteStreamSplitEnabled()
          && props.getWriterVersion() == ParquetProperties.WriterVersion.PARQUET_1_0) {
        return new ParquetPlainValues(Math.min(INITIAL_BYTES, props.getPageSizeThreshold()));
      }
      return parquet.newValuesWriter(descriptor);
    }
  }
}
