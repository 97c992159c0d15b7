package dev.lockstep.fs.oss;

import com.aliyun.oss.ClientException;
import com.aliyun.oss.OSSException;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.conditional.StoreAnswers;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.Set;

/**
 * Translates OSS SDK exceptions into the store's exceptions, right where the SDK is called.
 * Messages name the endpoint and the access key id, never the secret or the security token.
 */
final class OssErrors {

  /** Codes that mean the credentials were refused ("Error codes" in the OSS reference). */
  private static final Set<String> CREDENTIAL_CODES =
      Set.of(
          "InvalidAccessKeyId",
          "SignatureDoesNotMatch",
          "AccessDenied",
          "InvalidSecurityToken",
          "SecurityTokenExpired",
          "RequestTimeTooSkewed");

  private final String endpoint;
  private final String accessKeyId;

  OssErrors(String endpoint, String accessKeyId) {
    this.endpoint = endpoint;
    this.accessKeyId = accessKeyId;
  }

  static boolean isCode(RuntimeException e, String code) {
    return e instanceof OSSException && code.equals(((OSSException) e).getErrorCode());
  }

  /**
   * A 5xx answer, or one the SDK could not read (no body: {@code Unknown}; not OSS XML, as from a
   * proxy: {@code InvalidResponse}): OSS may or may not have applied the request.
   */
  static boolean isServerError(RuntimeException e) {
    if (!(e instanceof OSSException) || ((OSSException) e).getErrorCode() == null) {
      return false;
    }
    String code = ((OSSException) e).getErrorCode();
    return code.equals("InternalError")
        || code.equals("ServiceUnavailable")
        || code.equals("InvalidResponse")
        || code.startsWith("Unknown");
  }

  /**
   * Whether the request certainly never reached OSS: the connection could not be made. Note that
   * the SDK labels a lost answer ({@code NoHttpResponseException}) as a connection timeout, so the
   * SDK's error code cannot tell; only the cause can.
   */
  static boolean neverSent(RuntimeException e) {
    if (!(e instanceof ClientException) || e instanceof OSSException) {
      return false;
    }
    // The Apache HTTP client's connect timeout, by name: the bundle relocates this string with it.
    return StoreAnswers.cannotConnect(
        e.getCause(),
        cause -> cause.getClass().getName().equals("org.apache.http.conn.ConnectTimeoutException"));
  }

  /** The store's exception for a failed {@code action} on {@code path}. */
  IOException translate(RuntimeException e, String action, Path path) {
    if (e instanceof OSSException) {
      OSSException oss = (OSSException) e;
      String code = oss.getErrorCode();
      String detail =
          code + ": " + oss.getErrorMessage() + " (request id " + oss.getRequestId() + ")";
      if ("NoSuchKey".equals(code)) {
        return notFound(path + " does not exist", e);
      }
      if ("NoSuchBucket".equals(code)) {
        return notFound(
            "The bucket of "
                + path
                + " does not exist at OSS endpoint "
                + endpoint
                + " ("
                + detail
                + "). Create it, or check the bucket name and "
                + OssOptions.ENDPOINT
                + " (the bucket's region).",
            e);
      }
      if (CREDENTIAL_CODES.contains(code)) {
        AccessDeniedException denied =
            new AccessDeniedException(
                path.toString(),
                null,
                "OSS endpoint "
                    + endpoint
                    + " refused "
                    + action
                    + " with access key id '"
                    + accessKeyId
                    + "': "
                    + detail
                    + ". Check "
                    + OssOptions.ACCESS_KEY_ID
                    + ", "
                    + OssOptions.ACCESS_KEY_SECRET
                    + (code.equals("RequestTimeTooSkewed")
                        ? " and this machine's clock"
                        : ", " + OssOptions.SECURITY_TOKEN + " and the RAM policy of that key"));
        denied.initCause(e);
        return denied;
      }
      return new IOException(
          "OSS " + action + " of " + path + " failed at endpoint " + endpoint + ": " + detail, e);
    }
    if (e instanceof ClientException) {
      return new IOException(
          "OSS "
              + action
              + " of "
              + path
              + " failed: cannot talk to endpoint "
              + endpoint
              + " ("
              + ((ClientException) e).getErrorCode()
              + ": "
              + ((ClientException) e).getErrorMessage()
              + "). Check "
              + OssOptions.ENDPOINT
              + " and the network.",
          e);
    }
    return new IOException(
        "OSS " + action + " of " + path + " failed at endpoint " + endpoint + ": " + e, e);
  }

  private static FileNotFoundException notFound(String message, Throwable cause) {
    FileNotFoundException e = new FileNotFoundException(message);
    e.initCause(cause);
    return e;
  }
}
