package dev.lockstep.fs.s3;

import dev.lockstep.fs.RangedObjectInputStream;
import java.io.IOException;
import java.io.InputStream;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Reads one S3 object as a stream of ranged GETs; the seek and range logic is lock-api's {@link
 * RangedObjectInputStream}, which fs-oss shares.
 *
 * <ol>
 *   <li>Opening sends one {@code GET Range: bytes=-}{@value #TAIL}: the object's last {@value
 *       #TAIL} bytes, or all of it when it is shorter. A missing key fails at once with {@link
 *       java.io.FileNotFoundException}; the answer gives the length (its {@code Content-Range}) and
 *       the ETag, and its bytes are kept in memory. An object no longer than that is read with this
 *       one request; a Parquet or ORC reader finds its footer there and then reads the column
 *       chunks with one more GET, instead of a GET that the first seek to the footer would drop.
 *   <li>Reads below the tail stream from {@code GET Range: bytes=pos-(tail start - 1)}, opened at
 *       the first read; a short forward seek (at most {@value #SKIP_LIMIT} bytes) skips on the open
 *       answer, any other seek drops it and the next read opens a new range.
 *   <li>{@link #readFully(long, byte[], int, int)} sends at most one {@code GET Range: bytes=a-b}
 *       (of what the tail does not hold) and leaves the stream position unchanged.
 *   <li>Every later GET carries {@code If-Match: <etag>}: an object replaced while being read fails
 *       with an {@link IOException} instead of mixing two versions.
 *   <li>A dropped answer with more than {@value #DRAIN_LIMIT} bytes left is aborted; a smaller one
 *       is drained so its connection stays pooled. A read that fails mid-stream fails at once (the
 *       SDK already retried the request).
 *   <li>A store that ignores the range and answers the whole object (200, no {@code Content-Range})
 *       is read as before: that answer serves the reads from position 0. An empty object, for which
 *       a suffix range cannot be satisfied (416), is opened with a plain GET.
 * </ol>
 *
 * <p>Not thread-safe, like every {@link InputStream}, except {@link #readFully(long, byte[], int,
 * int)}, which touches no state of the stream.
 */
final class S3InputStream extends RangedObjectInputStream<ResponseInputStream<GetObjectResponse>> {

  /** The bytes at the object's end that opening reads (Parquet and ORC footers live there). */
  static final int TAIL = 64 * 1024;

  static final long SKIP_LIMIT = 256 * 1024;

  /** Remaining bytes below which dropping a response drains it to keep the connection pooled. */
  static final long DRAIN_LIMIT = 64 * 1024;

  private final S3Client client;
  private final S3Location location;
  private final String etag;

  /** A store that answered the whole object: that answer serves the reads from 0. */
  private S3InputStream(
      S3Client client, S3Location location, ResponseInputStream<GetObjectResponse> whole) {
    super(location.toString(), lengthOf(whole.response()), whole, SKIP_LIMIT, DRAIN_LIMIT, false);
    this.client = client;
    this.location = location;
    this.etag = whole.response().eTag();
  }

  /** Opened with the object's last bytes, {@code tail}. */
  private S3InputStream(
      S3Client client, S3Location location, long length, byte[] tail, String etag) {
    super(location.toString(), length, tail, SKIP_LIMIT, DRAIN_LIMIT, false);
    this.client = client;
    this.location = location;
    this.etag = etag;
  }

  /** Opens {@code location} with one GET of its last {@value #TAIL} bytes. */
  static S3InputStream open(S3Client client, S3Location location) throws IOException {
    ResponseInputStream<GetObjectResponse> first;
    try {
      first =
          client.getObject(
              b -> b.bucket(location.bucket()).key(location.key()).range("bytes=-" + TAIL));
    } catch (SdkException e) {
      if (S3Errors.status(e) == 416) {
        return openWhole(client, location); // empty: no last byte to ask for
      }
      throw S3Errors.translate("Reading", location, e);
    }
    GetObjectResponse response = first.response();
    long length = totalLength(response.contentRange());
    if (length < 0) {
      return new S3InputStream(client, location, first);
    }
    byte[] tail;
    try (first) {
      tail = first.readAllBytes();
    } catch (IOException | SdkException e) {
      throw new IOException("Reading the last bytes of " + location + " failed", e);
    }
    if (tail.length > length || firstByte(response.contentRange()) != length - tail.length) {
      throw new IOException(
          location
              + " answered "
              + tail.length
              + " bytes as "
              + response.contentRange()
              + " for its last "
              + TAIL
              + " bytes: not the end of the object");
    }
    return new S3InputStream(client, location, length, tail, response.eTag());
  }

  private static S3InputStream openWhole(S3Client client, S3Location location) throws IOException {
    try {
      return new S3InputStream(
          client, location, client.getObject(b -> b.bucket(location.bucket()).key(location.key())));
    } catch (SdkException e) {
      throw S3Errors.translate("Reading", location, e);
    }
  }

  /** The total of {@code bytes first-last/total}; -1 when there is none (a whole answer). */
  static long totalLength(String contentRange) throws IOException {
    if (contentRange == null) {
      return -1;
    }
    int slash = contentRange.lastIndexOf('/');
    try {
      return Long.parseLong(contentRange.substring(slash + 1).trim());
    } catch (NumberFormatException e) {
      throw new IOException(
          "Cannot read the object's length from Content-Range '" + contentRange + "'", e);
    }
  }

  /** The first of {@code bytes first-last/total}; -1 when it cannot be read. */
  private static long firstByte(String contentRange) {
    int dash = contentRange.indexOf('-');
    int space = contentRange.indexOf(' ');
    try {
      return Long.parseLong(contentRange.substring(space + 1, dash).trim());
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private static long lengthOf(GetObjectResponse response) {
    return response.contentLength() == null ? -1 : response.contentLength();
  }

  @Override
  protected ResponseInputStream<GetObjectResponse> openRange(long first, long last)
      throws IOException {
    String range = "bytes=" + first + "-" + (last >= 0 ? Long.toString(last) : "");
    try {
      return client.getObject(
          b -> {
            b.bucket(location.bucket()).key(location.key()).range(range);
            if (etag != null) {
              b.ifMatch(etag);
            }
          });
    } catch (SdkException e) {
      if (S3Errors.isPreconditionFailed(e)) {
        throw new IOException(
            location
                + " was replaced while being read (its ETag changed from "
                + etag
                + "); open it again",
            e);
      }
      throw S3Errors.translate("Reading", location, e);
    }
  }

  @Override
  protected InputStream body(ResponseInputStream<GetObjectResponse> response) {
    return response;
  }

  @Override
  protected void release(ResponseInputStream<GetObjectResponse> response, boolean abort) {
    if (abort) {
      response.abort();
    }
    try {
      response.close();
    } catch (IOException | RuntimeException ignored) {
      // The connection is discarded; nothing of the caller's state depends on it.
    }
  }
}
