package dev.lockstep.paimon.fs;

import dev.lockstep.fs.RangedObjectInputStream;
import java.io.IOException;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.VectoredReadable;

/**
 * A Lockstep seekable stream (ranged GETs) as Paimon's {@link SeekableInputStream}. Over an object
 * store's stream ({@link RangedObjectInputStream}, whose positioned reads touch no stream state) it
 * is also Paimon's {@link VectoredReadable}: Paimon's Parquet and ORC readers then fetch column
 * chunks that lie apart with positioned reads on Paimon's I/O threads, each one ranged GET (Paimon
 * merges ranges closer than 256 KiB and reads one merged range through the stream as before).
 */
class PaimonInputStream extends SeekableInputStream {

  private final dev.lockstep.fs.SeekableInputStream in;

  PaimonInputStream(dev.lockstep.fs.SeekableInputStream in) {
    this.in = in;
  }

  /** {@code in} as Paimon's stream: vectored when its positioned reads may run at once. */
  static PaimonInputStream of(dev.lockstep.fs.SeekableInputStream in) {
    return in instanceof RangedObjectInputStream
        ? new Vectored((RangedObjectInputStream<?>) in)
        : new PaimonInputStream(in);
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

  /** Positioned reads without moving the stream, safe from several threads at once. */
  static final class Vectored extends PaimonInputStream implements VectoredReadable {

    private final RangedObjectInputStream<?> object;

    Vectored(RangedObjectInputStream<?> object) {
      super(object);
      this.object = object;
    }

    /** Up to {@code length} bytes at {@code position} (fewer only at the end); -1 past the end. */
    @Override
    public int pread(long position, byte[] buffer, int offset, int length) throws IOException {
      if (position < 0) {
        throw new IOException("Cannot read at " + position + ", before the start");
      }
      if (length == 0) {
        return 0;
      }
      long left = object.length() - position;
      if (left <= 0) {
        return -1;
      }
      int n = (int) Math.min(length, left);
      object.readFully(position, buffer, offset, n);
      return n;
    }
  }
}
