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
 *   <li>Opening sends {@code GET} for the whole object: a missing key fails at once with {@link
 *       java.io.FileNotFoundException}, and the answer gives the length and the ETag.
 *   <li>Sequential reads stream from the open response.
 *   <li>{@link #seek} is lazy: a short forward seek (at most {@value #SKIP_LIMIT} bytes) skips on the
 *       open stream; any other seek drops it, and the next read sends {@code GET Range: bytes=pos-}.
 *   <li>{@link #readFully(long, byte[], int, int)} sends one {@code GET Range: bytes=a-b} and leaves
 *       the stream position unchanged.
 *   <li>Every later GET carries {@code If-Match: <etag>}: an object replaced while being read fails
 *       with an {@link IOException} instead of mixing two versions.
 *   <li>A dropped response with more than {@value #DRAIN_LIMIT} bytes left is aborted; a smaller one
 *       is drained so its connection stays pooled. A read that fails mid-stream fails at once (the
 *       SDK already retried the request).
 * </ol>
 *
 * <p>Not thread-safe, like every {@link InputStream}.
 */
final class S3InputStream extends RangedObjectInputStream<ResponseInputStream<GetObjectResponse>> {

  static final long SKIP_LIMIT = 256 * 1024;
  /** Remaining bytes below which dropping a response drains it to keep the connection pooled. */
  static final long DRAIN_LIMIT = 64 * 1024;

  private final S3Client client;
  private final S3Location location;
  private final String etag;

  private S3InputStream(S3Client client, S3Location location,
      ResponseInputStream<GetObjectResponse> first) {
    super(location.toString(), lengthOf(first.response()), first, SKIP_LIMIT, DRAIN_LIMIT, false);
    this.client = client;
    this.location = location;
    this.etag = first.response().eTag();
  }

  /** Opens {@code location} with one GET of the whole object. */
  static S3InputStream open(S3Client client, S3Location location) throws IOException {
    ResponseInputStream<GetObjectResponse> first;
    try {
      first = client.getObject(b -> b.bucket(location.bucket()).key(location.key()));
    } catch (SdkException e) {
      throw S3Errors.translate("Reading", location, e);
    }
    return new S3InputStream(client, location, first);
  }

  private static long lengthOf(GetObjectResponse response) {
    return response.contentLength() == null ? -1 : response.contentLength();
  }

  @Override
  protected ResponseInputStream<GetObjectResponse> openRange(long first, long last)
      throws IOException {
    String range = "bytes=" + first + "-" + (last >= 0 ? Long.toString(last) : "");
    try {
      return client.getObject(b -> {
        b.bucket(location.bucket()).key(location.key()).range(range);
        if (etag != null) {
          b.ifMatch(etag);
        }
      });
    } catch (SdkException e) {
      if (S3Errors.isPreconditionFailed(e)) {
        throw new IOException(location + " was replaced while being read (its ETag changed from "
            + etag + "); open it again", e);
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
