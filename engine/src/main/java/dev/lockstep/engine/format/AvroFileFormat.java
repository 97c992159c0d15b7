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
import org.apache.avro.io.EncoderFactory;

/**
 * Apache Avro container files, compressed with deflate (built into Avro, no native library), zstd
 * (zstd-jni), snappy (snappy-java) or not at all ({@code none}, also spelt {@code null}). Rows are
 * encoded and decoded by {@link RowDatum}, straight from and to their Java values. A reader
 * decompresses whatever codec the file names.
 */
public final class AvroFileFormat implements FileFormat {

  static final int SYNC_INTERVAL = 16 * 1024;

  private final CodecFactory codec;

  /**
   * @param compression {@code deflate}, {@code zstd}, {@code snappy}, {@code none} or {@code null}
   * @throws IllegalArgumentException for another codec (Avro has no {@code lz4}), naming the
   *     choices
   */
  public AvroFileFormat(String compression) {
    this.codec = codecOf(compression);
  }

  static CodecFactory codecOf(String compression) {
    switch (compression.toLowerCase(java.util.Locale.ROOT)) {
      case "deflate":
        return CodecFactory.deflateCodec(6);
      case "zstd":
        return CodecFactory.zstandardCodec(3);
      case "snappy":
        return CodecFactory.snappyCodec();
      case "none":
      case "null":
        return CodecFactory.nullCodec();
      default:
        throw new IllegalArgumentException(
            "Compression '"
                + compression
                + "' is not one of"
                + " Avro's: use deflate, zstd, snappy or none (lz4 is for Parquet files only).");
    }
  }

  @Override
  public String extension() {
    return "avro";
  }

  @Override
  public FormatWriter createWriter(FileIO fileIO, Path path, RowType rowType) throws IOException {
    Schema schema = AvroRows.schemaOf(rowType);
    CountingStream out = new CountingStream(fileIO.newOutputStream(path, false));
    DataFileWriter<GenericRow> writer = new DataFileWriter<>(new RowDatum.Writer(rowType));
    writer.setCodec(codec);
    // Small blocks, so that length() follows the file closely enough for rolling at the target
    // size.
    writer.setSyncInterval(SYNC_INTERVAL);
    // Avro's default encoder writes each value byte by byte into the block buffer; a buffered one
    // writes the same bytes in runs (DataFileWriter counts its buffered bytes into the block size).
    writer.setEncoder(stream -> EncoderFactory.get().binaryEncoder(stream, null));
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
        writer.append(row);
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
    return createReader(fileIO, path, rowType, ReadOptions.ALL);
  }

  /**
   * Opens a file; columns that {@code options} leave out are skipped in the encoded bytes, not
   * decoded (they read as NULL). Avro has no statistics inside a file: nothing else is skipped (the
   * row filter is left to the caller); the rows {@code options.deleted()} names are left out.
   */
  @Override
  public FormatReader createReader(FileIO fileIO, Path path, RowType rowType, ReadOptions options)
      throws IOException {
    InputStream in = fileIO.newInputStream(path);
    DataFileStream<GenericRow> stream;
    try {
      stream = new DataFileStream<>(in, new RowDatum.Reader(rowType, options.columns()));
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
    return options.dropDeleted(
        new FormatReader() {
          @Override
          public GenericRow next() {
            return stream.hasNext() ? stream.next() : null;
          }

          @Override
          public void close() throws IOException {
            stream.close();
          }
        });
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
