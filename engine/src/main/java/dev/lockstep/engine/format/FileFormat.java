package dev.lockstep.engine.format;

import dev.lockstep.engine.types.RowType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.IOException;

/**
 * A file format for rows of one {@link RowType}: data files and manifests are written through it.
 * Files are immutable once closed; a reader reads them with the row type they were written with.
 */
public interface FileFormat {

  /** The file name extension, without the dot, for example {@code avro}. */
  String extension();

  /**
   * Starts a new file at {@code path}.
   *
   * <ul>
   *   <li>Before: nothing is at {@code path} (names are unique).
   *   <li>After {@link FormatWriter#close()}: a whole file is there.
   *   <li>After a failure: a partial file may be left; the caller deletes it (it is unreferenced).
   * </ul>
   */
  FormatWriter createWriter(FileIO fileIO, Path path, RowType rowType) throws IOException;

  /**
   * Opens a file written with {@code rowType}.
   *
   * @throws java.io.FileNotFoundException when it does not exist
   */
  FormatReader createReader(FileIO fileIO, Path path, RowType rowType) throws IOException;

  /**
   * Opens a file written with {@code rowType}, reading what {@code options} ask for (see {@link
   * ReadOptions}: a format may read more, but never returns the rows {@code options.deleted()}
   * names). The default reads everything but those.
   */
  default FormatReader createReader(FileIO fileIO, Path path, RowType rowType, ReadOptions options)
      throws IOException {
    return options.dropDeleted(createReader(fileIO, path, rowType));
  }
}
