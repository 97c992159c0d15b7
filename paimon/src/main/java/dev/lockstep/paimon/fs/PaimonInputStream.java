package dev.lockstep.paimon.fs;

import java.io.IOException;
import org.apache.paimon.fs.SeekableInputStream;

/** A Lockstep seekable stream (ranged GETs) as Paimon's {@link SeekableInputStream}. */
final class PaimonInputStream extends SeekableInputStream {

  private final dev.lockstep.fs.SeekableInputStream in;

  PaimonInputStream(dev.lockstep.fs.SeekableInputStream in) {
    this.in = in;
  }

  @Override
  public void seek(long position) throws IOException {
    in.seek(position);
  }

  @Override
  public long getPos() throws IOException {
    return in.position();
  }

  @Override
  public int read() throws IOException {
    return in.read();
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    return in.read(buffer, offset, length);
  }

  @Override
  public long skip(long n) throws IOException {
    return in.skip(n);
  }

  @Override
  public int available() throws IOException {
    return in.available();
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
