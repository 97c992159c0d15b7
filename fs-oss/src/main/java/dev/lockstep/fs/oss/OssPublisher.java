package dev.lockstep.fs.oss;

import com.aliyun.oss.ClientException;
import com.aliyun.oss.OSS;
import com.aliyun.oss.OSSException;
import com.aliyun.oss.model.AbortMultipartUploadRequest;
import com.aliyun.oss.model.CompleteMultipartUploadRequest;
import com.aliyun.oss.model.GenericRequest;
import com.aliyun.oss.model.InitiateMultipartUploadRequest;
import com.aliyun.oss.model.ObjectMetadata;
import com.aliyun.oss.model.PartETag;
import com.aliyun.oss.model.PutObjectRequest;
import com.aliyun.oss.model.UploadPartRequest;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.conditional.Answer;
import dev.lockstep.fs.conditional.ConditionalPublisher;
import dev.lockstep.fs.conditional.ObjectKey;
import dev.lockstep.fs.conditional.Ownership;
import dev.lockstep.fs.conditional.StoreAnswers;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * Publishes objects: PutObject, and multipart uploads ended by CompleteMultipartUpload, optionally
 * with {@code x-oss-forbid-overwrite: true}, through lock-api's {@link ConditionalPublisher} (its
 * class javadoc numbers the protocol: retry loop, write-id read-back on an uncertain answer,
 * deadline). This class supplies OSS's primitives:
 *
 * <ul>
 *   <li>the requests, sent by a client without SDK retries, each carrying a fresh write id in its
 *       user metadata ({@value ConditionalPublisher#WRITE_ID}); waits start at {@value
 *       OssOptions#RETRY_INTERVAL}, doubling up to 5 s, for {@value OssOptions#ATTEMPTS} attempts;
 *   <li>OSS's answers ({@link #classify}): 409 {@code FileAlreadyExists} is "already exists",
 *       {@code NoSuchUpload} is "upload gone"; a 5xx, an answer the SDK could not read, or an I/O
 *       error after the connection was made (timeout, reset, no answer) may have landed and is
 *       retried; an error before the connection was made (refused, unknown host, connect timeout)
 *       landed nothing and is retried; another 4xx stops;
 *   <li>the read-back: the object's metadata, for our write id.
 * </ul>
 *
 * <p>Why not let the SDK retry: its retry of a forbid-overwrite PUT whose first answer was lost
 * answers 409 {@code FileAlreadyExists} for our own write, and the SDK labels a lost answer ({@code
 * NoHttpResponseException}) a "connection timeout", as if nothing had been sent.
 */
final class OssPublisher implements StoreAnswers {

  /** User metadata key carrying the unique id of the write that published an object. */
  static final String WRITE_ID = ConditionalPublisher.WRITE_ID;

  private static final String FORBID_OVERWRITE = "x-oss-forbid-overwrite";
  private static final long MAX_PAUSE_MILLIS = 5_000;

  private final OSS client;
  private final OSS publishClient;
  private final OssErrors errors;
  private final ConditionalPublisher publisher;

  OssPublisher(OSS client, OSS publishClient, OssErrors errors, OssOptions options) {
    this.client = client;
    this.publishClient = publishClient;
    this.errors = errors;
    this.publisher =
        new ConditionalPublisher(
            this,
            new ConditionalPublisher.Retries(
                options.attempts(),
                options.retryInterval(),
                Duration.ofMillis(MAX_PAUSE_MILLIS),
                OssOptions.ATTEMPTS));
  }

  ConditionalPublisher publisher() {
    return publisher;
  }

  /** PutObject of {@code buffer[0, length)} with Content-MD5, as the class javadoc describes. */
  void putObject(ObjectKey key, Path path, byte[] buffer, int length, boolean forbidOverwrite)
      throws IOException {
    String writeId = UUID.randomUUID().toString();
    String md5 = Base64.getEncoder().encodeToString(md5(buffer, length));
    publish(
        key,
        path,
        writeId,
        forbidOverwrite,
        "PutObject",
        () ->
            publishClient.putObject(
                putRequest(key, buffer, length, md5, writeId, forbidOverwrite)));
  }

  /**
   * The PutObject every write sends: {@code buffer[0, length)}, its {@code Content-MD5} (base64),
   * the write id in the user metadata, and {@code x-oss-forbid-overwrite: true} when asked. A new
   * request (with a fresh body stream) per attempt.
   */
  static PutObjectRequest putRequest(
      ObjectKey key,
      byte[] buffer,
      int length,
      String md5,
      String writeId,
      boolean forbidOverwrite) {
    ObjectMetadata meta = new ObjectMetadata();
    meta.setContentLength(length);
    meta.setContentMD5(md5);
    meta.setContentType("application/octet-stream");
    meta.addUserMetadata(WRITE_ID, writeId);
    if (forbidOverwrite) {
      meta.setHeader(FORBID_OVERWRITE, "true");
    }
    PutObjectRequest request =
        new PutObjectRequest(
            key.bucket(), key.key(), new ByteArrayInputStream(buffer, 0, length), meta);
    request.setLogEnabled(false);
    return request;
  }

  /**
   * InitiateMultipartUpload (SDK retries: a lost answer leaves at most an unused upload, which a
   * bucket lifecycle rule for incomplete uploads removes).
   *
   * @throws FileAlreadyExistsException when {@code forbidOverwrite} and the object exists already
   */
  String initiate(ObjectKey key, Path path, boolean forbidOverwrite, String writeId)
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
        FileAlreadyExistsException conflict =
            new FileAlreadyExistsException(
                path.toString(),
                null,
                "another writer created it first (" + alreadyExistsAnswer() + ")");
        conflict.initCause(e);
        throw conflict;
      }
      throw errors.translate(e, "InitiateMultipartUpload", path);
    }
  }

  /** UploadPart (SDK retries: uploading a part number again replaces it). */
  PartETag uploadPart(
      ObjectKey key, Path path, String uploadId, int number, byte[] buffer, int length)
      throws IOException {
    try {
      return client
          .uploadPart(
              new UploadPartRequest(
                  key.bucket(),
                  key.key(),
                  uploadId,
                  number,
                  new ByteArrayInputStream(buffer, 0, length),
                  length))
          .getPartETag();
    } catch (RuntimeException e) {
      throw errors.translate(e, "UploadPart " + number, path);
    }
  }

  /** CompleteMultipartUpload, as the class javadoc describes. */
  void complete(
      ObjectKey key,
      Path path,
      String uploadId,
      List<PartETag> parts,
      boolean forbidOverwrite,
      String writeId)
      throws IOException {
    publish(
        key,
        path,
        writeId,
        forbidOverwrite,
        "CompleteMultipartUpload",
        () -> {
          CompleteMultipartUploadRequest request =
              new CompleteMultipartUploadRequest(
                  key.bucket(), key.key(), uploadId, new ArrayList<>(parts));
          if (forbidOverwrite) {
            request.addHeader(FORBID_OVERWRITE, "true");
          }
          request.setLogEnabled(false);
          publishClient.completeMultipartUpload(request);
        });
  }

  /** AbortMultipartUpload, best effort: a failure is attached to {@code cause}. */
  void abort(ObjectKey key, String uploadId, Exception cause) {
    try {
      client.abortMultipartUpload(
          new AbortMultipartUploadRequest(key.bucket(), key.key(), uploadId));
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  private void publish(
      ObjectKey key,
      Path path,
      String writeId,
      boolean forbidOverwrite,
      String action,
      ConditionalPublisher.Attempt send)
      throws IOException {
    publisher.publish(path, action, forbidOverwrite, send, cause -> ownership(key, writeId, cause));
  }

  /** Reads back whose object is at {@code key} by its write id; never throws. */
  private Ownership ownership(ObjectKey key, String writeId, Exception cause) {
    ObjectMetadata meta;
    try {
      GenericRequest request = new GenericRequest(key.bucket(), key.key());
      request.setLogEnabled(false);
      meta = client.getObjectMetadata(request);
    } catch (RuntimeException e) {
      if (OssErrors.isCode(e, "NoSuchKey")) {
        return Ownership.ABSENT;
      }
      cause.addSuppressed(e);
      return Ownership.UNKNOWN;
    }
    return writeId.equals(meta.getUserMetadata().get(WRITE_ID)) ? Ownership.OURS : Ownership.THEIRS;
  }

  @Override
  public Answer classify(RuntimeException failure) {
    boolean landed =
        OssErrors.isServerError(failure)
            || (failure instanceof OSSException && ((OSSException) failure).getErrorCode() == null)
            || (failure instanceof ClientException && !OssErrors.neverSent(failure));
    if (Thread.currentThread().isInterrupted()
        || causedBy(failure, InterruptedException.class)
        || causedBy(failure, InterruptedIOException.class)) {
      return Answer.interrupted(landed);
    }
    if (OssErrors.isCode(failure, "FileAlreadyExists")) {
      return Answer.alreadyExists();
    }
    if (OssErrors.isCode(failure, "NoSuchUpload")) {
      return Answer.uploadGone();
    }
    return landed || failure instanceof ClientException ? Answer.retry(landed) : Answer.stop(false);
  }

  @Override
  public IOException failure(RuntimeException failure, String action, Path path) {
    return errors.translate(failure, action, path);
  }

  @Override
  public String alreadyExistsAnswer() {
    return "OSS 409 FileAlreadyExists";
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
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
