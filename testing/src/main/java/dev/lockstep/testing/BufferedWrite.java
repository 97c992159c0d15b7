package dev.lockstep.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A write held back until close, as an object store's PUT sends its bytes at close: the fixtures
 * decide at close what happens to them ({@link #land}, once; a second close does nothing).
 */
abstract class BufferedWrite extends OutputStream {

  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
  private boolean closed;

  @Override
  public void write(int b) {
    buffer.write(b);
  }

  @Override
  public void write(byte[] b, int off, int len) {
    buffer.write(b, off, len);
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    land(buffer);
  }

  /** Called once, at the first close, with every byte written. */
  protected abstract void land(ByteArrayOutputStream bytes) throws IOException;
}
