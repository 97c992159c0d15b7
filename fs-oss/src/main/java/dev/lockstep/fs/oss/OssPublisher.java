package dev.lockstep.fs.oss;

import com.aliyun.oss.ClientException;
import com.aliyun.oss.OSS;
import com.aliyun.oss.model.AbortMultipartUploadRequest;
import com.aliyun.oss.model.CompleteMultipartUploadRequest;
import com.aliyun.oss.model.GenericRequest;
import com.aliyun.oss.model.InitiateMultipartUploadRequest;
import com.aliyun.oss.model.ObjectMetadata;
import com.aliyun.oss.model.PartETag;
import com.aliyun.oss.model.PutObjectRequest;
import com.aliyun.oss.model.UploadPartRequest;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes objects: PutObject, and multipart uploads ended by CompleteMultipartUpload, optionally
 * with {@code x-oss-forbid-overwrite: true}.
 *
 * <p>A publishing request is sent by a client without SDK retries, and retried here:
 *
 * <ol>
 *   <li>Every write carries a fresh write id in its user metadata ({@value #WRITE_ID}).
 *   <li>Send. Success: done. {@code FileAlreadyExists} while no earlier attempt may have landed:
 *       a conflict, {@link FileAlreadyExistsException}. Another 4xx: a failure; nothing landed.
 *   <li>A 5xx answer, or an I/O error after the connection was made (timeout, reset, no answer):
 *       the attempt may have landed. Wait ({@value OssOptions#RETRY_INTERVAL}, doubling) and send
 *       again, up to {@value OssOptions#ATTEMPTS} attempts. An error before the connection was made
 *       (refused, unknown host, connect timeout) landed nothing and is simply retried.
 *   <li>After an attempt that may have landed, {@code FileAlreadyExists} (or {@code NoSuchUpload}
 *       for a multipart upload that was already completed) may be our own earlier attempt: read the
 *       object's metadata back. Our write id: success. Another object: {@link
 *       FileAlreadyExistsException} for a forbid-overwrite write (ours cannot have landed, or it
 *       would still be there), {@link UncertainWriteException} for an overwrite. The read fails or
 *       finds nothing: {@link UncertainWriteException}.
 *   <li>Attempts exhausted after a possible landing: the same read-back decides, else {@link
 *       UncertainWriteException}.
 * </ol>
 *
 * <p>Why not let the SDK retry: its retry of a forbid-overwrite PUT whose first answer was lost
 * answers 409 {@code FileAlreadyExists} for our own write, and the SDK labels a lost answer ({@code
 * NoHttpResponseException}) a "connection timeout", as if nothing had been sent.
 */
final class OssPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(OssPublisher.class);

  /** User metadata key carrying the unique id of the write that published an object. */
  static final String WRITE_ID = "lockstep-write-id";

  private static final String FORBID_OVERWRITE = "x-oss-forbid-overwrite";
  private static final long MAX_PAUSE_MILLIS = 5_000;

  private final OSS client;
  private final OSS publishClient;
  private final OssErrors errors;
  private final OssOptions options;

  OssPublisher(OSS client, OSS publishClient, OssErrors errors, OssOptions options) {
    this.client = client;
    this.publishClient = publishClient;
    this.errors = errors;
    this.options = options;
  }

  /** One SDK call that publishes. */
  private interface Send {
    void run();
  }

  /** PutObject of {@code buffer[0, length)} with Content-MD5, as the class javadoc describes. */
  void putObject(OssKey key, Path path, byte[] buffer, int length, boolean forbidOverwrite)
      throws IOException {
    String writeId = UUID.randomUUID().toString();
    String md5 = Base64.getEncoder().encodeToString(md5(buffer, length));
    publish(key, path, writeId, forbidOverwrite, "PutObject", () ->
        publishClient.putObject(putRequest(key, buffer, length, md5, writeId, forbidOverwrite)));
  }

  /**
   * The PutObject every write sends: {@code buffer[0, length)}, its {@code Content-MD5} (base64),
   * the write id in the user metadata, and {@code x-oss-forbid-overwrite: true} when asked. A new
   * request (with a fresh body stream) per attempt.
   */
  static PutObjectRequest putRequest(OssKey key, byte[] buffer, int length, String md5,
      String writeId, boolean forbidOverwrite) {
    ObjectMetadata meta = new ObjectMetadata();
    meta.setContentLength(length);
    meta.setContentMD5(md5);
    meta.setContentType("application/octet-stream");
    meta.addUserMetadata(WRITE_ID, writeId);
    if (forbidOverwrite) {
      meta.setHeader(FORBID_OVERWRITE, "true");
    }
    PutObjectRequest request = new PutObjectRequest(key.bucket(), key.key(),
        new ByteArrayInputStream(buffer, 0, length), meta);
    request.setLogEnabled(false);
    return request;
  }

  /**
   * InitiateMultipartUpload (SDK retries: a lost answer leaves at most an unused upload, which a
   * bucket lifecycle rule for incomplete uploads removes).
   *
   * @throws FileAlreadyExistsException when {@code forbidOverwrite} and the object exists already
   */
  String initiate(OssKey key, Path path, boolean forbidOverwrite, String writeId)
      throws IOException {
    ObjectMetadata meta = new ObjectMetadata();
    meta.setContentType("application/octet-stream");
    meta.addUserMetadata(WRITE_ID, writeId);
    InitiateMultipartUploadRequest request =
        new InitiateMultipartUploadRequest(key.bucket(), key.key(), meta);
    if (forbidOverwrite) {
      request.addHeader(FORBID_OVERWRITE, "true");
    }
    request.setLogEnabled(false);
    try {
      return client.initiateMultipartUpload(request).getUploadId();
    } catch (RuntimeException e) {
      if (OssErrors.isCode(e, "FileAlreadyExists")) {
        throw conflict(path);
      }
      throw errors.translate(e, "InitiateMultipartUpload", path);
    }
  }

  /** UploadPart (SDK retries: uploading a part number again replaces it). */
  PartETag uploadPart(OssKey key, Path path, String uploadId, int number, byte[] buffer,
      int length) throws IOException {
    try {
      return client.uploadPart(new UploadPartRequest(key.bucket(), key.key(), uploadId, number,
          new ByteArrayInputStream(buffer, 0, length), length)).getPartETag();
    } catch (RuntimeException e) {
      throw errors.translate(e, "UploadPart " + number, path);
    }
  }

  /** CompleteMultipartUpload, as the class javadoc describes. */
  void complete(OssKey key, Path path, String uploadId, List<PartETag> parts,
      boolean forbidOverwrite, String writeId) throws IOException {
    publish(key, path, writeId, forbidOverwrite, "CompleteMultipartUpload", () -> {
      CompleteMultipartUploadRequest request = new CompleteMultipartUploadRequest(key.bucket(),
          key.key(), uploadId, new ArrayList<>(parts));
      if (forbidOverwrite) {
        request.addHeader(FORBID_OVERWRITE, "true");
      }
      request.setLogEnabled(false);
      publishClient.completeMultipartUpload(request);
    });
  }

  /** AbortMultipartUpload, best effort: a failure is attached to {@code cause}. */
  void abort(OssKey key, String uploadId, Exception cause) {
    try {
      client.abortMultipartUpload(
          new AbortMultipartUploadRequest(key.bucket(), key.key(), uploadId));
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  private void publish(OssKey key, Path path, String writeId, boolean forbidOverwrite,
      String action, Send send) throws IOException {
    boolean mayHaveLanded = false;
    RuntimeException last = null;
    for (int attempt = 1; attempt <= options.attempts(); attempt++) {
      if (attempt > 1) {
        pause(attempt, path, mayHaveLanded, last);
      }
      try {
        send.run();
        return;
      } catch (RuntimeException e) {
        last = e;
        boolean alreadyThere = OssErrors.isCode(e, "FileAlreadyExists");
        if (alreadyThere && !mayHaveLanded) {
          throw conflict(path);
        }
        if (alreadyThere || (mayHaveLanded && OssErrors.isCode(e, "NoSuchUpload"))) {
          resolveByReadBack(key, path, writeId, forbidOverwrite, e);
          return;
        }
        if (OssErrors.isServerError(e)
            || (e instanceof ClientException && !OssErrors.neverSent(e))) {
          mayHaveLanded = true;
        } else if (!(e instanceof ClientException)) {
          throw errors.translate(e, action, path);
        }
        LOG.debug("{} of {} failed on attempt {} of {} ({}landed maybe: {})", action, path, attempt,
            options.attempts(), mayHaveLanded ? "" : "not ", e.toString());
      }
    }
    if (mayHaveLanded) {
      resolveByReadBack(key, path, writeId, forbidOverwrite, last);
      return;
    }
    throw errors.translate(last, action, path);
  }

  /**
   * Decides an attempt that may have landed by our write id: returns when the object is ours.
   *
   * @throws FileAlreadyExistsException when another write's object is there and ours was
   *     forbidden to overwrite (so ours did not land, or it would still be there)
   * @throws UncertainWriteException when nothing is there, the read fails, or another write's
   *     object is there and ours was an overwrite (which may have landed before it)
   */
  private void resolveByReadBack(OssKey key, Path path, String writeId, boolean forbidOverwrite,
      RuntimeException cause) throws IOException {
    ObjectMetadata meta;
    try {
      GenericRequest request = new GenericRequest(key.bucket(), key.key());
      request.setLogEnabled(false);
      meta = client.getObjectMetadata(request);
    } catch (RuntimeException e) {
      if (OssErrors.isCode(e, "NoSuchKey")) {
        throw new UncertainWriteException(path, "an attempt may have landed, but no object is there"
            + " now", cause);
      }
      UncertainWriteException uncertain = new UncertainWriteException(path,
          "an attempt may have landed, and reading it back failed", cause);
      uncertain.addSuppressed(e);
      throw uncertain;
    }
    if (writeId.equals(meta.getUserMetadata().get(WRITE_ID))) {
      LOG.debug("{} is our own earlier attempt (write id {})", path, writeId);
      return;
    }
    if (!forbidOverwrite) {
      throw new UncertainWriteException(path, "an attempt may have landed, and another write's"
          + " object is there now", cause);
    }
    throw conflict(path);
  }

  private void pause(int attempt, Path path, boolean mayHaveLanded, RuntimeException last)
      throws IOException {
    long base = options.retryInterval().toMillis() << Math.min(attempt - 2, 16);
    long millis = Math.min(MAX_PAUSE_MILLIS, base) / 2
        + ThreadLocalRandom.current().nextLong(Math.min(MAX_PAUSE_MILLIS, base) / 2 + 1);
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (mayHaveLanded) {
        throw new UncertainWriteException(path, "interrupted while retrying a write that may have"
            + " landed", last);
      }
      InterruptedIOException interrupted = new InterruptedIOException(
          "Interrupted while retrying the write of " + path + "; nothing was published");
      interrupted.initCause(last);
      throw interrupted;
    }
  }

  private static FileAlreadyExistsException conflict(Path path) {
    return new FileAlreadyExistsException(path.toString(), null,
        "another writer created it first (OSS 409 FileAlreadyExists)");
  }

  static byte[] md5(byte[] buffer, int length) {
    try {
      MessageDigest digest = MessageDigest.getInstance("MD5");
      digest.update(buffer, 0, length);
      return digest.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is part of every JDK", e);
    }
  }
}
