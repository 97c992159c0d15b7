package dev.lockstep.fs.oss.testing;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.function.LongSupplier;

/**
 * An input stream that reads no faster than a rate read before every read ({@code 0} = full speed),
 * as a slow network delivers bytes: before each read it sleeps off the time that the bytes read so
 * far should have taken, and it reads at most a tenth of a second's worth at once. Time not spent
 * reading is not saved up for a burst later.
 */
final class ThrottledInput extends FilterInputStream {

  private final LongSupplier bytesPerSecond;
  private long nextReadAt = System.nanoTime();

  ThrottledInput(InputStream in, LongSupplier bytesPerSecond) {
    super(in);
    this.bytesPerSecond = bytesPerSecond;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    long rate = bytesPerSecond.getAsLong();
    if (rate <= 0 || len == 0) {
      return in.read(b, off, len);
    }
    long now = System.nanoTime();
    long wait = nextReadAt - now;
    if (wait > 0) {
      try {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(
            "Interrupted while reading slowly (the server is closing)");
      }
    } else {
      nextReadAt = now;
    }
    int n = in.read(b, off, (int) Math.max(1, Math.min(len, rate / 10)));
    if (n > 0) {
      nextReadAt += n * 1_000_000_000L / rate;
    }
    return n;
  }
}
