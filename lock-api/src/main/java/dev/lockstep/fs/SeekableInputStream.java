package dev.lockstep.fs;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/** An input stream that can move to any position and read at a position without moving. */
public abstract class SeekableInputStream extends InputStream {

  /** Moves the read position to {@code position} (0 ≤ position ≤ length). */
  public abstract void seek(long position) throws IOException;

  /** The current read position. */
  public abstract long position() throws IOException;

  /**
   * Reads exactly {@code length} bytes starting at {@code position}. The stream position afterwards
   * is unspecified unless an implementation says otherwise.
   *
   * @throws EOFException when the file ends before {@code length} bytes were read
   */
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    seek(position);
    int done = 0;
    while (done < length) {
      int n = read(buffer, offset + done, length - done);
      if (n < 0) {
        throw new EOFException(
            "Reached the end after " + done + " of " + length + " bytes at position " + position);
      }
      done += n;
    }
  }
}
