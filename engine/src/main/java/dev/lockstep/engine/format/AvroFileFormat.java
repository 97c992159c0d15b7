package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/**
 * Apache Avro container files, compressed with deflate (built into Avro, no native library) or not
 * at all ({@code file.compression=null}).
 */
public final class AvroFileFormat implements FileFormat {

  static final int SYNC_INTERVAL = 16 * 1024;

  private final String compression;

  /** @param compression {@code deflate} or {@code null} */
  public AvroFileFormat(String compression) {
    this.compression = compression;
  }

  @Override
  public String extension() {
    return "avro";
  }

  @Override
  public FormatWriter createWriter(FileIO fileIO, Path path, RowType rowType) throws IOException {
    Schema schema = AvroRows.schemaOf(rowType);
    CountingStream out = new CountingStream(fileIO.newOutputStream(path, false));
    DataFileWriter<GenericRecord> writer =
        new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema));
    writer.setCodec(compression.equals("deflate") ? CodecFactory.deflateCodec(6)
        : CodecFactory.nullCodec());
    // Small blocks, so that length() follows the file closely enough for rolling at the target size.
    writer.setSyncInterval(SYNC_INTERVAL);
    try {
      writer.create(schema, out);
    } catch (IOException | RuntimeException e) {
      out.close();
      throw e;
    }
    return new FormatWriter() {
      private boolean closed;

      @Override
      public void write(GenericRow row) throws IOException {
        writer.append(AvroRows.toRecord(schema, rowType, row));
      }

      @Override
      public long length() {
        return out.count;
      }

      @Override
      public void close() throws IOException {
        if (!closed) {
          closed = true;
          writer.close();
        }
      }
    };
  }

  @Override
  public FormatReader createReader(FileIO fileIO, Path path, RowType rowType) throws IOException {
    InputStream in = fileIO.newInputStream(path);
    DataFileStream<GenericRecord> stream;
    try {
      stream = new DataFileStream<>(in,
          new GenericDatumReader<>(null, AvroRows.schemaOf(rowType)));
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
    return new FormatReader() {
      @Override
      public GenericRow next() {
        return stream.hasNext() ? AvroRows.fromRecord(rowType, stream.next()) : null;
      }

      @Override
      public void close() throws IOException {
        stream.close();
      }
    };
  }

  /** Counts the bytes that reached the store's stream. */
  private static final class CountingStream extends FilterOutputStream {
    private volatile long count;

    CountingStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }
  }
}
