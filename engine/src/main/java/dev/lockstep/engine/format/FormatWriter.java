package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import java.io.Closeable;
import java.io.IOException;

/** Writes the rows of one file; not thread-safe. */
public interface FormatWriter extends Closeable {

  /** Appends a row; it must fit the writer's row type. */
  void write(GenericRow row) throws IOException;

  /** Bytes written so far (may lag behind by one buffered block until {@link #close()}). */
  long length() throws IOException;

  /** Finishes the file; after success it is whole and visible. Idempotent. */
  @Override
  void close() throws IOException;
}
