package dev.lockstep.engine.format;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.FieldStats;
import java.io.Closeable;
import java.io.IOException;

/** Writes the rows of one file; not thread-safe. */
public interface FormatWriter extends Closeable {

  /**
   * Appends a row; it must fit the writer's row type. The writer may keep the row until {@link
   * #close()} (a Parquet writer holds back a file's first rows to choose encodings), so the caller
   * must not change it or its values afterwards, as {@link GenericRow} asks.
   */
  void write(GenericRow row) throws IOException;

  /** Bytes written so far (may lag behind by one buffered block until {@link #close()}). */
  long length() throws IOException;

  /** Finishes the file; after success it is whole and visible. Idempotent. */
  @Override
  void close() throws IOException;

  /**
   * Whether this writer keeps the full statistics of every column while it writes (a Parquet
   * footer's), so that {@link #stats(int)} answers after {@link #close()} and a caller need not
   * collect them row by row. The default: no.
   */
  default boolean keepsStats() {
    return false;
  }

  /**
   * After {@link #close()}, the full statistics of the file's first {@code columns} columns in the
   * engine's values and order ({@link dev.lockstep.engine.predicate.Values}): for each, the least
   * and greatest non-null value as the file holds it (a value the format stores with less precision
   * is bounded as it reads back) and the null count; an element is {@link FieldStats#UNKNOWN} where
   * the format did not keep one. Only when {@link #keepsStats()}.
   *
   * @throws UnsupportedOperationException when this writer keeps no statistics
   */
  default FieldStats[] stats(int columns) {
    throw new UnsupportedOperationException("This writer keeps no column statistics");
  }
}
