package dev.lockstep.fs.oss.testing;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One request as the server understood it.
 *
 * @param operation the OSS API name ({@code PutObject}, {@code ListObjectsV2}, ...)
 * @param method the HTTP method
 * @param bucket the bucket, or {@code null} for a service request
 * @param key the decoded object key, or {@code null} for a bucket request
 * @param params decoded query parameters in order; a {@code null} value is a bare name
 * @param headers the request headers, names lower-cased
 * @param body the request body
 */
record OssRequest(
    String operation,
    String method,
    String bucket,
    String key,
    Map<String, String> params,
    Map<String, List<String>> headers,
    byte[] body) {

  /** The first value of a header, or {@code null}. */
  String header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /**
   * {@code x-oss-forbid-overwrite}: "true" forbids, absent or "false" allows.
   *
   * @throws OssError 400 {@code InvalidArgument} for any other value (OSS error 0017-00000279)
   */
  boolean forbidOverwrite() throws OssError {
    String value = header("x-oss-forbid-overwrite");
    if (value == null || value.equalsIgnoreCase("false")) {
      return false;
    }
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    throw new OssError(
        400,
        "InvalidArgument",
        "0017-00000279",
        "x-oss-forbid-overwrite must be true or false, not '" + value + "'.");
  }

  boolean has(String param) {
    return params.containsKey(param);
  }
}
