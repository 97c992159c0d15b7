package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import java.io.Closeable;
import java.io.IOException;

/** Reads the rows of one file in order; not thread-safe. */
public interface FormatReader extends Closeable {

  /** The next row, or {@code null} at the end. */
  GenericRow next() throws IOException;
}
