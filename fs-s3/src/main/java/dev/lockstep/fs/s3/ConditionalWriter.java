package dev.lockstep.fs.s3;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Create-if-absent on S3 with {@code If-None-Match: *}, on PutObject and on CompleteMultipartUpload,
 * with its own retry loop instead of the SDK's.
 *
 * <p>Why not the SDK's retries: when attempt 1 lands but its answer is lost (reset, timeout, a 500 sent
 * after the write), attempt 2 finds the object and answers 412. Taken at face value that reports our
 * own win as someone else's, and the commit protocol would then give up a snapshot that is ours.
 *
 * <p>The loop, for one write tagged with a unique write id (user metadata {@value #WRITE_ID}):
 *
 * <ol>
 *   <li>Send one attempt through the client without SDK retries.
 *   <li>200: ours. Return.
 *   <li>412 when no earlier attempt may have landed: someone else's object. {@link
 *       FileAlreadyExistsException}.
 *   <li>412 (or 404 {@code NoSuchUpload} on complete) after an attempt that may have landed: read the
 *       object's write id back (HEAD; when a store drops user metadata, compare the bytes). Ours:
 *       return. Another's: conflict. Cannot tell: {@link UncertainWriteException}. Without the
 *       metadata (a store that drops it) a single-part write is ours when the ETag is the MD5 of our
 *       bytes or the bytes read back are ours.
 *   <li>409 {@code ConditionalRequestConflict}, 503 {@code SlowDown}, 5xx, timeouts, resets: back off
 *       (exponential, jittered, {@code s3.retry.*}) and retry; remember whether the failed attempt may
 *       have landed ({@link S3Errors#mayHaveLanded}).
 *   <li>Any other 4xx: stop. Before that, if an earlier attempt may have landed, read back as in 4.
 *   <li>Attempts exhausted ({@code s3.retry.max-attempts}): if some attempt may have landed, read back
 *       as in 4, where "absent" is still uncertain (a delayed request may land later); otherwise fail.
 * </ol>
 *
 * <p>Interrupts stop the loop at once: uncertain if an attempt may have landed, else {@link
 * InterruptedIOException}; the interrupt flag stays set.
 */
final class ConditionalWriter {

  /** User metadata key carrying the unique id of one create-if-absent call. */
  static final String WRITE_ID = "lockstep-write-id";

  private final S3Clients clients;
  private final S3Options options;

  ConditionalWriter(S3Clients clients, S3Options options) {
    this.clients = clients;
    this.options = options;
  }

  /** Who owns the object at a key, as far as a read-back tells. */
  enum Ownership { OURS, THEIRS, ABSENT, UNKNOWN }

  /** One request, sent once. */
  @FunctionalInterface
  interface Attempt {
    void send();
  }

  /** PutObject with {@code If-None-Match: *}, retried as the class javadoc says. */
  void putIfAbsent(Path path, S3Location location, byte[] content, String writeId)
      throws IOException {
    run(path, location, writeId, content, false, () -> clients.singleAttempt().putObject(
        b -> b.bucket(location.bucket()).key(location.key()).ifNoneMatch("*")
            .metadata(Map.of(WRITE_ID, writeId)),
        RequestBody.fromBytes(content)));
  }

  /**
   * CompleteMultipartUpload with {@code If-None-Match: *}, retried as the class javadoc says. The
   * upload must have been created with {@value #WRITE_ID} = {@code writeId} in its metadata.
   */
  void completeIfAbsent(Path path, S3Location location, String uploadId, List<CompletedPart> parts,
      String writeId) throws IOException {
    run(path, location, writeId, null, true, () -> clients.singleAttempt().completeMultipartUpload(
        b -> b.bucket(location.bucket()).key(location.key()).uploadId(uploadId).ifNoneMatch("*")
            .multipartUpload(u -> u.parts(parts))));
  }

  private void run(Path path, S3Location location, String writeId, byte[] content,
      boolean multipart, Attempt attempt) throws IOException {
    boolean mayHaveLanded = false;
    SdkException last = null;
    for (int n = 1; n <= options.maxAttempts(); n++) {
      if (n > 1) {
        backOff(n - 1, path, mayHaveLanded, last);
      }
      try {
        attempt.send();
        return;
      } catch (SdkException e) {
        last = e;
        if (e instanceof AbortedException || Thread.currentThread().isInterrupted()) {
          throw interrupted(path, location, mayHaveLanded || S3Errors.mayHaveLanded(e), e);
        }
        if (S3Errors.isPreconditionFailed(e) || (multipart && S3Errors.isNoSuchUpload(e))) {
          if (!mayHaveLanded && S3Errors.isPreconditionFailed(e)) {
            throw conflict(path, e);
          }
          if (!mayHaveLanded) {
            throw new IOException("The multipart upload for " + path + " vanished before it was"
                + " completed (aborted, or expired by a lifecycle rule); nothing was published.", e);
          }
          resolve(path, location, writeId, content, e, false);
          return;
        }
        if (S3Errors.isConditionalConflict(e)) {
          continue;
        }
        boolean landed = S3Errors.mayHaveLanded(e);
        mayHaveLanded |= landed;
        if (!isRetryable(e)) {
          if (mayHaveLanded) {
            resolve(path, location, writeId, content, e, true);
            return;
          }
          throw S3Errors.translate("Conditional write of", location, e);
        }
      }
    }
    if (mayHaveLanded) {
      resolve(path, location, writeId, content, last, true);
      return;
    }
    throw new IOException("Gave up the conditional write of " + path + " after "
        + options.maxAttempts() + " attempts (option '" + S3Options.RETRY_MAX_ATTEMPTS
        + "'); nothing was published.", last);
  }

  private static boolean isRetryable(SdkException e) {
    int status = S3Errors.status(e);
    if (status < 0) {
      return true;
    }
    return status >= 500 || status == 408 || status == 429 || status == 409;
  }

  /**
   * Decides a write that may have landed by reading the object back: returns when it is ours, throws
   * a conflict when it is someone else's, and {@link UncertainWriteException} otherwise.
   *
   * @param absentIsUncertain whether "nothing there" is uncertain (a delayed attempt may still land)
   *     rather than impossible
   */
  private void resolve(Path path, S3Location location, String writeId, byte[] content,
      SdkException cause, boolean absentIsUncertain) throws IOException {
    Ownership ownership = ownership(location, writeId, content, cause);
    switch (ownership) {
      case OURS:
        return;
      case THEIRS:
        throw conflict(path, cause);
      default:
        throw new UncertainWriteException(path, (ownership == Ownership.ABSENT
            ? "an attempt may have landed, yet nothing is there now" + (absentIsUncertain ? ""
                : " although the store said something was")
            : "an attempt may have landed and reading the object back did not tell whose it is")
            + " (last error: " + cause + ")", cause);
    }
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
    try (ResponseInputStream<GetObjectResponse> in = clients.retrying()
        .getObject(b -> b.bucket(location.bucket()).key(location.key()).ifMatch(head.eTag()))) {
      return sameBytes(in, content) ? Ownership.OURS : Ownership.THEIRS;
    } catch (SdkException | IOException e) {
      cause.addSuppressed(e);
      return Ownership.UNKNOWN;
    }
  }

  private static String md5Hex(byte[] content) {
    try {
      return java.util.HexFormat.of().formatHex(
          java.security.MessageDigest.getInstance("MD5").digest(content));
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

  private void backOff(int retry, Path path, boolean mayHaveLanded, SdkException last)
      throws IOException {
    long base = options.retryBaseDelay().toNanos();
    long max = options.retryMaxDelay().toNanos();
    long delay = retry >= 62 ? max : Math.min(max, base << Math.min(retry - 1, 30));
    long jittered = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
    try {
      Thread.sleep(Duration.ofNanos(jittered).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (mayHaveLanded) {
        throw new UncertainWriteException(path, "interrupted while retrying a write that may have"
            + " landed (last error: " + last + ")", e);
      }
      InterruptedIOException interrupted = new InterruptedIOException(
          "Interrupted while retrying the conditional write of " + path + "; nothing was published");
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  private static IOException interrupted(Path path, S3Location location, boolean mayHaveLanded,
      SdkException e) {
    Thread.currentThread().interrupt();
    if (mayHaveLanded) {
      return new UncertainWriteException(path, "interrupted during a write that may have landed", e);
    }
    return S3Errors.translate("Conditional write of", location, e);
  }

  static FileAlreadyExistsException conflict(Path path, Exception cause) {
    FileAlreadyExistsException conflict = new FileAlreadyExistsException(path.toString(), null,
        "another writer created it first (S3 answered 412 to If-None-Match: *)");
    conflict.initCause(cause);
    return conflict;
  }
}
