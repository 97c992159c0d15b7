package dev.lockstep.paimon.fs;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.paimon.fs.PositionOutputStream;

/**
 * A Lockstep store's output stream as Paimon's {@link PositionOutputStream}: counts the bytes
 * written. {@link #flush()} does not publish; the file appears whole when the stream closes.
 */
final class PaimonOutputStream extends PositionOutputStream {

  private final OutputStream out;
  private long position;

  PaimonOutputStream(OutputStream out) {
    this.out = out;
  }

  @Override
  public long getPos() {
    return position;
  }

  @Override
  public void write(int b) throws IOException {
    out.write(b);
    position++;
  }

  @Override
  public void write(byte[] buffer) throws IOException {
    write(buffer, 0, buffer.length);
  }

  @Override
  public void write(byte[] buffer, int offset, int length) throws IOException {
    out.write(buffer, offset, length);
    position += length;
  }

  @Override
  public void flush() throws IOException {
    out.flush();
  }

  @Override
  public void close() throws IOException {
    out.close();
  }
}
