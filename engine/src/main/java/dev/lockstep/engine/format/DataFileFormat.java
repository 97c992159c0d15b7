package dev.lockstep.engine.format;

import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.util.Locale;

/**
 * The data files of a table: new files are written in the table's {@code file.format}; every file
 * is read in the format its name's extension names, so a table whose format changed holds and reads
 * files of both. Thread-safe.
 */
public final class DataFileFormat implements FileFormat {

  /** {@code file.format} of Apache Parquet files. */
  public static final String PARQUET = "parquet";

  /** {@code file.format} of Apache Avro container files. */
  public static final String AVRO = "avro";

  private final FileFormat writeFormat;
  private final ParquetFileFormat parquet;
  private final AvroFileFormat avro;

  /**
   * @param format {@link #PARQUET} or {@link #AVRO}: the format new files are written in
   * @param compression the codec of new files (see {@link ParquetFileFormat} and {@link
   *     AvroFileFormat} for what each accepts)
   * @param parquetBlockSize the row group size of new Parquet files, in bytes
   * @param parquetPageSize the page size of new Parquet files, in bytes
   * @throws IllegalArgumentException for an unknown format, or a codec the format lacks
   */
  public DataFileFormat(
      String format, String compression, long parquetBlockSize, int parquetPageSize) {
    this(format, compression, parquetBlockSize, parquetPageSize, java.util.Set.of());
  }

  /**
   * As {@link #DataFileFormat(String, String, long, int)}, with the columns new Parquet files write
   * plain, without a dictionary (see {@link ParquetFileFormat}).
   */
  public DataFileFormat(
      String format,
      String compression,
      long parquetBlockSize,
      int parquetPageSize,
      java.util.Set<String> parquetPlainColumns) {
    String name = format.toLowerCase(Locale.ROOT);
    if (name.equals(PARQUET)) {
      this.parquet =
          new ParquetFileFormat(
              compression, parquetBlockSize, parquetPageSize, parquetPlainColumns);
      this.avro = new AvroFileFormat("null");
      this.writeFormat = parquet;
    } else if (name.equals(AVRO)) {
      this.parquet = new ParquetFileFormat("none", parquetBlockSize, parquetPageSize);
      this.avro = new AvroFileFormat(compression);
      this.writeFormat = avro;
    } else {
      throw new IllegalArgumentException(
          "File format '" + format + "' is unknown: use '" + PARQUET + "' or '" + AVRO + "'.");
    }
  }

  /** The extension of the files this format writes. */
  @Override
  public String extension() {
    return writeFormat.extension();
  }

  @Override
  public FormatWriter createWriter(FileIO fileIO, Path path, RowType rowType) throws IOException {
    return writeFormat.createWriter(fileIO, path, rowType);
  }

  /**
   * Opens a data file in the format of its extension ({@code .parquet} or {@code .avro}).
   *
   * @throws IOException for a file of another extension, naming it
   */
  @Override
  public FormatReader createReader(FileIO fileIO, Path path, RowType rowType) throws IOException {
    return createReader(fileIO, path, rowType, ReadOptions.ALL);
  }

  /** Opens a data file in the format of its extension, reading what {@code options} ask for. */
  @Override
  public FormatReader createReader(FileIO fileIO, Path path, RowType rowType, ReadOptions options)
      throws IOException {
    String name = path.name();
    if (name.endsWith("." + parquet.extension())) {
      return parquet.createReader(fileIO, path, rowType, options);
    }
    if (name.endsWith("." + avro.extension())) {
      return avro.createReader(fileIO, path, rowType, options);
    }
    throw new IOException(
        "Data file "
            + path
            + " is neither ."
            + parquet.extension()
            + " nor ."
            + avro.extension()
            + "; this version reads no other format.");
  }
}
