package dev.lockstep.fs.s3;

import dev.lockstep.fs.conditional.StoreAnswers;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Reads the SDK's exceptions: which ones mean "not found", "precondition failed", "conditional
 * conflict", and whether a failed write may still have reached the store. Every other module class
 * translates here, right where the client is called.
 */
final class S3Errors {

  private S3Errors() {}

  static int status(Throwable e) {
    return e instanceof SdkServiceException ? ((SdkServiceException) e).statusCode() : -1;
  }

  static String code(Throwable e) {
    if (e instanceof S3Exception && ((S3Exception) e).awsErrorDetails() != null) {
      String code = ((S3Exception) e).awsErrorDetails().errorCode();
      return code == null ? "" : code;
    }
    return "";
  }

  static boolean isNotFound(Throwable e) {
    return status(e) == 404;
  }

  /** 412: {@code If-None-Match: *} found an object at the key. */
  static boolean isPreconditionFailed(Throwable e) {
    return status(e) == 412;
  }

  /**
   * 409 {@code ConditionalRequestConflict}: another conditional write to the key was in flight, or
   * the key was deleted during our multipart upload. Our request did not take effect; retry.
   */
  static boolean isConditionalConflict(Throwable e) {
    return status(e) == 409
        && !code(e).equals("BucketAlreadyExists")
        && !code(e).equals("BucketAlreadyOwnedByYou");
  }

  /** 404 {@code NoSuchUpload}: the multipart upload is gone (completed, aborted or expired). */
  static boolean isNoSuchUpload(Throwable e) {
    return status(e) == 404 && code(e).equals("NoSuchUpload");
  }

  /**
   * Whether a write that failed with {@code e} may nevertheless have reached the store and taken
   * effect. False only when the request provably was not processed: it never left this machine (no
   * connection could be made, or the client failed before any I/O, such as credentials that cannot
   * load), or the service answered with a 4xx (a request it rejected), or with 503 {@code SlowDown}
   * (throttled before processing). Everything else (a reset or silent connection after sending, a
   * timeout, a 500, an interrupt during the call) may have landed.
   */
  static boolean mayHaveLanded(Throwable e) {
    if (e instanceof SdkServiceException) {
      int status = ((SdkServiceException) e).statusCode();
      if (status >= 400 && status < 500) {
        return status == 408;
      }
      return !(status == 503 && code(e).equals("SlowDown"));
    }
    if (isUnreachable(e)) {
      return false;
    }
    boolean io = false;
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      io |=
          cause instanceof IOException
              || cause instanceof ApiCallAttemptTimeoutException
              || cause instanceof ApiCallTimeoutException
              || cause instanceof AbortedException;
    }
    // A client-side failure without I/O (credentials that cannot load, a bad request) never sent.
    return io;
  }

  /**
   * Whether no connection to the endpoint could be made (refused, unknown host, no route, connect
   * timeout): the endpoint is unreachable, and the request never left this machine.
   */
  static boolean isUnreachable(Throwable e) {
    // The Apache HTTP client's connect timeout, by name: the bundle relocates this string with it.
    return StoreAnswers.cannotConnect(
        e,
        cause -> cause.getClass().getName().equals("org.apache.http.conn.ConnectTimeoutException"));
  }

  /** An {@link IOException} for a failed call that is neither a conflict nor uncertain. */
  static IOException translate(String operation, S3Location location, SdkException e) {
    if (e instanceof AbortedException) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted =
          new InterruptedIOException(operation + " " + location + " was interrupted");
      interrupted.initCause(e);
      return interrupted;
    }
    if (isNotFound(e)) {
      if (code(e).equals("NoSuchBucket")) {
        FileNotFoundException missing =
            new FileNotFoundException(
                "The bucket of "
                    + location
                    + " does not exist ("
                    + operation
                    + "). Create it, or fix the path.");
        missing.initCause(e);
        return missing;
      }
      FileNotFoundException missing = new FileNotFoundException(location + " does not exist");
      missing.initCause(e);
      return missing;
    }
    if (status(e) == 403) {
      return new IOException(
          "Access denied: "
              + operation
              + " "
              + location
              + ". The credentials"
              + " need the S3 permission for this call (see the fs-s3 README for the list a commit"
              + " needs).",
          e);
    }
    if (status(e) == 301
        || code(e).equals("PermanentRedirect")
        || code(e).equals("AuthorizationHeaderMalformed")) {
      return new IOException(
          operation
              + " "
              + location
              + " failed: the bucket is in another region"
              + " than '"
              + S3Options.REGION
              + "' says. Set '"
              + S3Options.REGION
              + "' to the bucket's"
              + " region.",
          e);
    }
    return new IOException(operation + " " + location + " failed: " + e.getMessage(), e);
  }
}
