package dev.lockstep.fs.oss;

import com.aliyun.oss.OSS;
import com.aliyun.oss.model.GetObjectRequest;
import com.aliyun.oss.model.OSSObject;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.RangedObjectInputStream;
import dev.lockstep.fs.conditional.ObjectKey;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * Reads one version of an object (its length and ETag fixed when opened) with ranged GetObjects;
 * the seek and range logic is lock-api's {@link RangedObjectInputStream}, which fs-s3 shares.
 *
 * <ol>
 *   <li>Opening sends one GetObject of the whole object: its answer fixes the length and ETag, and
 *       its body serves the first sequential reads (a small file costs one request).
 *   <li>Sequential reads stream one open-ended range {@code bytes=position-}; a seek closes it (or
 *       skips ahead, for a forward seek of at most {@value #SKIP_AHEAD_LIMIT} bytes) and the next
 *       read opens a new range.
 *   <li>{@link #readFully(long, byte[], int, int)} reads exactly its range with its own request and
 *       does not move the stream.
 *   <li>Every later GetObject carries {@code If-Match: <etag>}: when the object was replaced, the
 *       read fails instead of mixing two versions; {@code x-oss-range-behavior: standard} makes OSS
 *       refuse a range past the end instead of answering the whole object.
 *   <li>A stream that breaks mid-read is reopened once at the current position.
 *   <li>A dropped response with more than {@value #SKIP_AHEAD_LIMIT} bytes left is force-closed; a
 *       smaller one is closed, which drains it so its connection stays pooled.
 * </ol>
 */
final class OssInputStream extends RangedObjectInputStream<OSSObject> {

  static final long SKIP_AHEAD_LIMIT = 64 * 1024;

  private final OSS client;
  private final OssErrors errors;
  private final ObjectKey key;
  private final Path path;
  private final String etag;

  private OssInputStream(OSS client, OssErrors errors, ObjectKey key, Path path, OSSObject first) {
    super(
        path.toString(),
        first.getObjectMetadata().getContentLength(),
        first,
        SKIP_AHEAD_LIMIT,
        SKIP_AHEAD_LIMIT,
        true);
    this.client = client;
    this.errors = errors;
    this.key = key;
    this.path = path;
    this.etag = first.getObjectMetadata().getETag();
  }

  /**
   * Opens {@code key} for reading.
   *
   * @throws java.io.FileNotFoundException when no object is there
   */
  static OssInputStream open(OSS client, OssErrors errors, ObjectKey key, Path path)
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
  protected OSSObject openRange(long from, long to) throws IOException {
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
        throw new IOException(
            path
                + " was replaced while it was read (its ETag is no longer "
                + etag
                + "); open it again",
            e);
      }
      throw errors.translate(e, "GetObject", path);
    }
  }

  @Override
  protected InputStream body(OSSObject object) {
    return object.getObjectContent();
  }

  @Override
  protected void release(OSSObject object, boolean abort) {
    try {
      if (abort) {
        object.forcedClose();
      } else {
        object.close();
      }
    } catch (IOException | RuntimeException e) {
      // The connection is discarded either way.
    }
  }
}
