package dev.lockstep.fs.s3;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.conditional.Answer;
import dev.lockstep.fs.conditional.ConditionalPublisher;
import dev.lockstep.fs.conditional.Ownership;
import dev.lockstep.fs.conditional.StoreAnswers;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Create-if-absent on S3 with {@code If-None-Match: *}, on PutObject and on
 * CompleteMultipartUpload, through lock-api's {@link ConditionalPublisher} (its class javadoc
 * numbers the protocol: retry loop, write-id read-back on an uncertain answer, deadline). This
 * class supplies S3's primitives:
 *
 * <ul>
 *   <li>the requests, sent through the client without SDK retries;
 *   <li>S3's answers ({@link #classify}): 412 is "already exists"; 404 {@code NoSuchUpload} on a
 *       complete is "upload gone"; 409 {@code ConditionalRequestConflict} (another conditional
 *       write in flight) is retried as not landed; 5xx, 408, 409, 429, timeouts and resets are
 *       retried; {@link S3Errors#mayHaveLanded} tells whether a failure may have landed;
 *   <li>the read-back ({@link #ownership}): HEAD for the write id in the user metadata ({@value
 *       ConditionalPublisher#WRITE_ID}); where a store drops user metadata, a single-part write is
 *       ours when the ETag is the MD5 of our bytes or the bytes read back are ours.
 * </ul>
 */
final class ConditionalWriter implements StoreAnswers {

  /** User metadata key carrying the unique id of one create-if-absent call. */
  static final String WRITE_ID = ConditionalPublisher.WRITE_ID;

  private final S3Clients clients;
  private final ConditionalPublisher publisher;

  ConditionalWriter(S3Clients clients, S3Options options) {
    this.clients = clients;
    this.publisher = new ConditionalPublisher(this, options.publishRetries());
  }

  ConditionalPublisher publisher() {
    return publisher;
  }

  /** PutObject with {@code If-None-Match: *}, retried as {@link ConditionalPublisher} says. */
  void putIfAbsent(Path path, S3Location location, byte[] content, String writeId)
      throws IOException {
    publisher.publish(
        path,
        "PutObject",
        true,
        () ->
            clients
                .singleAttempt()
                .putObject(
                    b ->
                        b.bucket(location.bucket())
                            .key(location.key())
                            .ifNoneMatch("*")
                            .metadata(Map.of(WRITE_ID, writeId)),
                    RequestBody.fromBytes(content)),
        cause -> ownership(location, writeId, content, cause));
  }

  /**
   * CompleteMultipartUpload with {@code If-None-Match: *}, retried as {@link ConditionalPublisher}
   * says. The upload must have been created with {@value #WRITE_ID} = {@code writeId} in its
   * metadata.
   */
  void completeIfAbsent(
      Path path, S3Location location, String uploadId, List<CompletedPart> parts, String writeId)
      throws IOException {
    publisher.publish(
        path,
        "CompleteMultipartUpload",
        true,
        () ->
            clients
                .singleAttempt()
                .completeMultipartUpload(
                    b ->
                        b.bucket(location.bucket())
                            .key(location.key())
                            .uploadId(uploadId)
                            .ifNoneMatch("*")
                            .multipartUpload(u -> u.parts(parts))),
        cause -> ownership(location, writeId, null, cause));
  }

  @Override
  public Answer classify(RuntimeException failure) {
    if (failure instanceof AbortedException || Thread.currentThread().isInterrupted()) {
      return Answer.interrupted(S3Errors.mayHaveLanded(failure));
    }
    if (S3Errors.isPreconditionFailed(failure)) {
      return Answer.alreadyExists();
    }
    if (S3Errors.isNoSuchUpload(failure)) {
      return Answer.uploadGone();
    }
    if (S3Errors.isConditionalConflict(failure)) {
      return Answer.retry(false);
    }
    int status = S3Errors.status(failure);
    boolean retryable =
        status < 0 || status >= 500 || status == 408 || status == 429 || status == 409;
    boolean landed = S3Errors.mayHaveLanded(failure);
    return retryable ? Answer.retry(landed) : Answer.stop(landed);
  }

  @Override
  public IOException failure(RuntimeException failure, String action, Path path) {
    if (S3Errors.isNoSuchUpload(failure)) {
      return new IOException(
          "The multipart upload for "
              + path
              + " vanished before it was"
              + " completed (aborted, or expired by a lifecycle rule); nothing was published.",
          failure);
    }
    S3Location location = S3Location.of(path);
    return failure instanceof SdkException
        ? S3Errors.translate(action + " of", location, (SdkException) failure)
        : new IOException(action + " of " + location + " failed: " + failure, failure);
  }

  @Override
  public String alreadyExistsAnswer() {
    return "S3 answered 412 to If-None-Match: *";
  }

  /** Reads back whose object is at {@code location}; never throws. */
  Ownership ownership(S3Location location, String writeId, byte[] content, Exception cause) {
    HeadObjectResponse head;
    try {
      head = clients.retrying().headObject(b -> b.bucket(location.bucket()).key(location.key()));
    } catch (SdkException e) {
      if (S3Errors.isNotFound(e)) {
        return Ownership.ABSENT;
      }
      cause.addSuppressed(e);
      return Ownership.UNKNOWN;
    }
    String found = head.metadata() == null ? null : head.metadata().get(WRITE_ID);
    if (found != null) {
      return found.equals(writeId) ? Ownership.OURS : Ownership.THEIRS;
    }
    if (content == null) {
      return Ownership.UNKNOWN;
    }
    if (head.contentLength() != null && head.contentLength() != content.length) {
      return Ownership.THEIRS;
    }
    if (head.eTag() != null && head.eTag().replace("\"", "").equalsIgnoreCase(md5Hex(content))) {
      // A single-part upload's ETag is the MD5 of its bytes (not under SSE-KMS, so a different ETag
      // proves nothing and the bytes are compared below).
      return Ownership.OURS;
    }
    try (ResponseInputStream<GetObjectResponse> in =
        clients
            .retrying()
            .getObject(b -> b.bucket(location.bucket()).key(location.key()).ifMatch(head.eTag()))) {
      return sameBytes(in, content) ? Ownership.OURS : Ownership.THEIRS;
    } catch (SdkException | IOException e) {
      cause.addSuppressed(e);
      return Ownership.UNKNOWN;
    }
  }

  private static String md5Hex(byte[] content) {
    try {
      return java.util.HexFormat.of()
          .formatHex(java.security.MessageDigest.getInstance("MD5").digest(content));
    } catch (java.security.NoSuchAlgorithmException e) {
      return "";
    }
  }

  private static boolean sameBytes(InputStream in, byte[] content) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    int offset = 0;
    int n;
    while ((n = in.read(buffer)) >= 0) {
      if (offset + n > content.length) {
        return false;
      }
      for (int i = 0; i < n; i++) {
        if (buffer[i] != content[offset + i]) {
          return false;
        }
      }
      offset += n;
    }
    return offset == content.length;
  }
}
