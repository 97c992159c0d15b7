package dev.lockstep.fs.s3;

import dev.lockstep.fs.SeekableInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Reads one S3 object as a stream of ranged GETs.
 *
 * <ol>
 *   <li>Opening sends {@code GET} for the whole object: a missing key fails at once with {@link
 *       java.io.FileNotFoundException}, and the answer gives the length and the ETag.
 *   <li>Sequential reads stream from the open response.
 *   <li>{@link #seek} is lazy: a short forward seek (at most {@value #SKIP_LIMIT} bytes) skips on the
 *       open stream; any other seek drops it, and the next read sends {@code GET Range: bytes=pos-}.
 *   <li>{@link #readFully(long, byte[], int, int)} sends one {@code GET Range: bytes=a-b} and leaves
 *       the stream position unchanged.
 *   <li>Every later GET carries {@code If-Match: <etag>}: an object replaced while being read fails
 *       with an {@link IOException} instead of mixing two versions.
 * </ol>
 *
 * <p>Not thread-safe, like every {@link InputStream}.
 */
final class S3InputStream extends SeekableInputStream {

  static final long SKIP_LIMIT = 256 * 1024;
  /** Remaining bytes below which closing drains the response to keep the connection pooled. */
  private static final long DRAIN_LIMIT = 64 * 1024;

  private final S3Client client;
  private final S3Location location;
  private final long length;
  private final String etag;
  private ResponseInputStream<GetObjectResponse> stream;
  /** Position of the next byte {@link #stream} yields. */
  private long streamPosition;
  /** Position of the next byte the caller reads. */
  private long position;
  private boolean closed;

  S3InputStream(S3Client client, S3Location location) throws IOException {
    this.client = client;
    this.location = location;
    try {
      this.stream = client.getObject(b -> b.bucket(location.bucket()).key(location.key()));
    } catch (SdkException e) {
      throw S3Errors.translate("Reading", location, e);
    }
    GetObjectResponse response = stream.response();
    this.length = response.contentLength() == null ? -1 : response.contentLength();
    this.etag = response.eTag();
  }

  /** The object's length in bytes. */
  long length() {
    return length;
  }

  @Override
  public void seek(long newPosition) throws IOException {
    checkOpen();
    if (newPosition < 0 || newPosition > length) {
      throw new EOFException("Cannot seek to " + newPosition + " in " + location + " of length "
          + length);
    }
    position = newPosition;
  }

  @Override
  public long position() throws IOException {
    checkOpen();
    return position;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int len) throws IOException {
    checkOpen();
    java.util.Objects.checkFromIndexSize(offset, len, buffer.length);
    if (len == 0) {
      return 0;
    }
    if (position >= length) {
      return -1;
    }
    positionStream();
    int n;
    try {
      n = stream.read(buffer, offset, len);
    } catch (IOException e) {
      dropStream();
      throw new IOException("Reading " + location + " at " + position + " failed", e);
    }
    if (n < 0) {
      dropStream();
      throw new EOFException(location + " ended at " + position + ", before its length " + length
          + " (was it replaced while being read?)");
    }
    position += n;
    streamPosition += n;
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    checkOpen();
    long target = Math.min(length, position + Math.max(0, n));
    long skipped = target - position;
    position = target;
    return skipped;
  }

  @Override
  public int available() throws IOException {
    checkOpen();
    return (int) Math.min(Integer.MAX_VALUE, stream == null ? 0 : Math.max(0,
        Math.min(stream.available(), length - position)));
  }

  /** One ranged GET; the stream position is unchanged. */
  @Override
  public void readFully(long at, byte[] buffer, int offset, int len) throws IOException {
    checkOpen();
    java.util.Objects.checkFromIndexSize(offset, len, buffer.length);
    if (len == 0) {
      return;
    }
    if (at < 0 || at + len > length) {
      throw new EOFException("Cannot read " + len + " bytes at " + at + " of " + location
          + " of length " + length);
    }
    try (InputStream in = rangedGet(at, at + len - 1)) {
      int done = 0;
      while (done < len) {
        int n = in.read(buffer, offset + done, len - done);
        if (n < 0) {
          throw new EOFException("Reached the end of " + location + " after " + done + " of " + len
              + " bytes at position " + at);
        }
        done += n;
      }
    } catch (SdkException e) {
      throw readFailure(e);
    }
  }

  private IOException readFailure(SdkException e) {
    if (S3Errors.isPreconditionFailed(e)) {
      return new IOException(location + " was replaced while being read (its ETag changed from "
          + etag + "); open it again", e);
    }
    return S3Errors.translate("Reading", location, e);
  }

  private void positionStream() throws IOException {
    if (stream != null && position != streamPosition) {
      long gap = position - streamPosition;
      if (gap > 0 && gap <= SKIP_LIMIT) {
        try {
          stream.skipNBytes(gap);
          streamPosition += gap;
        } catch (IOException e) {
          dropStream();
        }
      } else {
        dropStream();
      }
    }
    if (stream == null) {
      try {
        stream = rangedGet(position, -1);
      } catch (SdkException e) {
        throw readFailure(e);
      }
      streamPosition = position;
    }
  }

  private ResponseInputStream<GetObjectResponse> rangedGet(long first, long last) {
    String range = "bytes=" + first + "-" + (last >= 0 ? Long.toString(last) : "");
    return client.getObject(b -> {
      b.bucket(location.bucket()).key(location.key()).range(range);
      if (etag != null) {
        b.ifMatch(etag);
      }
    });
  }

  private void dropStream() {
    if (stream == null) {
      return;
    }
    if (length - streamPosition > DRAIN_LIMIT) {
      stream.abort();
    }
    try {
      stream.close();
    } catch (IOException | RuntimeException ignored) {
      // The connection is discarded; nothing of the caller's state depends on it.
    }
    stream = null;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException("The stream of " + location + " is closed");
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      dropStream();
    }
  }
}
