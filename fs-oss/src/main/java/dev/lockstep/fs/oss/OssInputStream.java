package dev.lockstep.fs.oss;

import com.aliyun.oss.OSS;
import com.aliyun.oss.model.GetObjectRequest;
import com.aliyun.oss.model.OSSObject;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * Reads one version of an object (its length and ETag fixed when opened) with ranged GetObjects.
 *
 * <ol>
 *   <li>Opening sends one GetObject of the whole object: its answer fixes the length and ETag, and
 *       its body serves the first sequential reads (a small file costs one request).
 *   <li>Sequential reads stream one open-ended range {@code bytes=position-}; a seek closes it (or
 *       skips ahead, for a short forward seek) and the next read opens a new range.
 *   <li>{@link #readFully(long, byte[], int, int)} reads exactly its range with its own request and
 *       does not move the stream.
 *   <li>Every GetObject carries {@code If-Match: <etag>}: when the object was replaced, the read
 *       fails instead of mixing two versions; {@code x-oss-range-behavior: standard} makes OSS
 *       refuse a range past the end instead of answering the whole object.
 *   <li>A stream that breaks mid-read is reopened once at the current position.
 * </ol>
 */
final class OssInputStream extends SeekableInputStream {

  private static final long SKIP_AHEAD_LIMIT = 64 * 1024;

  private final OSS client;
  private final OssErrors errors;
  private final OssKey key;
  private final Path path;
  private final long length;
  private final String etag;
  private long position;
  private OSSObject current;
  private InputStream stream;
  private long streamPosition;
  private boolean closed;

  private OssInputStream(OSS client, OssErrors errors, OssKey key, Path path, OSSObject first) {
    this.client = client;
    this.errors = errors;
    this.key = key;
    this.path = path;
    this.length = first.getObjectMetadata().getContentLength();
    this.etag = first.getObjectMetadata().getETag();
    this.current = first;
    this.stream = first.getObjectContent();
    this.streamPosition = 0;
  }

  /**
   * Opens {@code key} for reading.
   *
   * @throws java.io.FileNotFoundException when no object is there
   */
  static OssInputStream open(OSS client, OssErrors errors, OssKey key, Path path)
      throws IOException {
    GetObjectRequest request = new GetObjectRequest(key.bucket(), key.key());
    request.setLogEnabled(false);
    try {
      return new OssInputStream(client, errors, key, path, client.getObject(request));
    } catch (RuntimeException e) {
      throw errors.translate(e, "GetObject", path);
    }
  }

  @Override
  public void seek(long newPosition) throws IOException {
    checkOpen();
    if (newPosition < 0 || newPosition > length) {
      throw new EOFException("Cannot seek to " + newPosition + " in " + path + " of length "
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
  public int read(byte[] b, int off, int len) throws IOException {
    checkOpen();
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    if (position >= length) {
      return -1;
    }
    int want = (int) Math.min(len, length - position);
    for (int attempt = 1; ; attempt++) {
      try {
        positionStream();
        int n = stream.read(b, off, want);
        if (n < 0) {
          throw new EOFException("The object " + path + " ended at " + position + " of " + length
              + " bytes");
        }
        position += n;
        streamPosition += n;
        return n;
      } catch (IOException e) {
        closeStream(true);
        if (attempt >= 2) {
          throw e;
        }
      }
    }
  }

  @Override
  public void readFully(long at, byte[] buffer, int offset, int len) throws IOException {
    checkOpen();
    java.util.Objects.checkFromIndexSize(offset, len, buffer.length);
    if (at < 0 || at + len > length) {
      throw new EOFException("Cannot read " + len + " bytes at " + at + " of " + path
          + " of length " + length);
    }
    if (len == 0) {
      return;
    }
    OSSObject object = open(at, at + len - 1);
    try (InputStream in = object.getObjectContent()) {
      int done = 0;
      while (done < len) {
        int n = in.read(buffer, offset + done, len - done);
        if (n < 0) {
          throw new EOFException("The object " + path + " ended after " + done + " of " + len
              + " bytes at " + at);
        }
        done += n;
      }
    }
  }

  @Override
  public long skip(long n) throws IOException {
    checkOpen();
    long to = Math.min(length, position + Math.max(0, n));
    long skipped = to - position;
    position = to;
    return skipped;
  }

  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      closeStream(length - streamPosition > SKIP_AHEAD_LIMIT);
    }
  }

  private void positionStream() throws IOException {
    if (stream != null && position != streamPosition) {
      long ahead = position - streamPosition;
      if (ahead > 0 && ahead <= SKIP_AHEAD_LIMIT) {
        stream.skipNBytes(ahead);
        streamPosition += ahead;
      } else {
        closeStream(true);
      }
    }
    if (stream == null) {
      current = open(position, -1);
      stream = current.getObjectContent();
      streamPosition = position;
    }
  }

  private OSSObject open(long from, long to) throws IOException {
    GetObjectRequest request = new GetObjectRequest(key.bucket(), key.key());
    request.setLogEnabled(false);
    request.setRange(from, to);
    request.addHeader("x-oss-range-behavior", "standard");
    if (etag != null) {
      request.setMatchingETagConstraints(List.of(etag));
    }
    try {
      return client.getObject(request);
    } catch (RuntimeException e) {
      if (OssErrors.isCode(e, "PreconditionFailed")) {
        throw new IOException(path + " was replaced while it was read (its ETag is no longer "
            + etag + "); open it again", e);
      }
      throw errors.translate(e, "GetObject", path);
    }
  }

  private void closeStream(boolean abort) {
    if (current != null) {
      try {
        if (abort) {
          current.forcedClose();
        } else {
          current.close();
        }
      } catch (IOException | RuntimeException e) {
        // The connection is discarded either way.
      }
    }
    current = null;
    stream = null;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException("The stream of " + path + " is closed");
    }
  }
}
