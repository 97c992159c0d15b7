package dev.lockstep.fs.oss;

import dev.lockstep.options.Durations;
import dev.lockstep.options.Options;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Options of the OSS store, parsed once and validated. Keys follow Hadoop's {@code hadoop-aliyun}
 * (which Apache Paimon's OSS filesystem also reads) where it has one.
 *
 * @param endpoint {@value #ENDPOINT}: {@code https://oss-cn-hangzhou.aliyuncs.com}; required
 * @param accessKeyId {@value #ACCESS_KEY_ID}; required
 * @param accessKeySecret {@value #ACCESS_KEY_SECRET}: a secret, never printed; required
 * @param securityToken {@value #SECURITY_TOKEN}: an STS token, a secret; {@code null} for none
 * @param connectTimeout {@value #CONNECT_TIMEOUT}: to establish a connection
 * @param socketTimeout {@value #SOCKET_TIMEOUT}: the longest silence while reading an answer
 * @param requestTimeout {@value #REQUEST_TIMEOUT}: a whole request; zero turns it off
 * @param maxConnections {@value #MAX_CONNECTIONS}: the connection pool size
 * @param attempts {@value #ATTEMPTS}: attempts per request on transient errors (1 = no retry)
 * @param retryInterval {@value #RETRY_INTERVAL}: the first wait between own retries, doubling
 * @param multipartThreshold {@value #MULTIPART_THRESHOLD}: writes larger than this use multipart
 * @param partSize {@value #PART_SIZE}: the size of each multipart part (at least 100 KB)
 * @param listPageSize {@value #LIST_PAGE_SIZE}: keys per list request (1 to 1000)
 * @param pathStyle {@value #PATH_STYLE}: address {@code endpoint/bucket/key} instead of {@code
 *     bucket.endpoint/key}; always on for an IP or {@code localhost} endpoint (the SDK decides)
 */
public record OssOptions(String endpoint, String accessKeyId, String accessKeySecret,
    String securityToken, Duration connectTimeout, Duration socketTimeout, Duration requestTimeout,
    int maxConnections, int attempts, Duration retryInterval, long multipartThreshold,
    long partSize, int listPageSize, boolean pathStyle) {

  public static final String ENDPOINT = "fs.oss.endpoint";
  public static final String ACCESS_KEY_ID = "fs.oss.accessKeyId";
  /** A secret: never logged, never in an exception message. */
  public static final String ACCESS_KEY_SECRET = "fs.oss.accessKeySecret";
  /** A secret: never logged, never in an exception message. */
  public static final String SECURITY_TOKEN = "fs.oss.securityToken";
  public static final String CONNECT_TIMEOUT = "fs.oss.connection.establish.timeout";
  public static final Duration CONNECT_TIMEOUT_DEFAULT = Duration.ofSeconds(10);
  public static final String SOCKET_TIMEOUT = "fs.oss.connection.timeout";
  public static final Duration SOCKET_TIMEOUT_DEFAULT = Duration.ofSeconds(60);
  public static final String REQUEST_TIMEOUT = "fs.oss.request.timeout";
  public static final Duration REQUEST_TIMEOUT_DEFAULT = Duration.ZERO;
  public static final String MAX_CONNECTIONS = "fs.oss.connection.maximum";
  public static final int MAX_CONNECTIONS_DEFAULT = 64;
  public static final String ATTEMPTS = "fs.oss.attempts.maximum";
  public static final int ATTEMPTS_DEFAULT = 4;
  public static final String RETRY_INTERVAL = "fs.oss.retry.interval";
  public static final Duration RETRY_INTERVAL_DEFAULT = Duration.ofMillis(100);
  public static final String MULTIPART_THRESHOLD = "fs.oss.multipart.upload.threshold";
  public static final long MULTIPART_THRESHOLD_DEFAULT = 16L << 20;
  public static final String PART_SIZE = "fs.oss.multipart.upload.size";
  public static final long PART_SIZE_DEFAULT = 8L << 20;
  public static final String LIST_PAGE_SIZE = "fs.oss.paging.maximum";
  public static final int LIST_PAGE_SIZE_DEFAULT = 1000;
  public static final String PATH_STYLE = "fs.oss.path-style-access";
  public static final boolean PATH_STYLE_DEFAULT = false;

  /** OSS refuses parts below 100 KB except the last ("CompleteMultipartUpload": EntityTooSmall). */
  public static final long MIN_PART_SIZE = 100L * 1024;

  public OssOptions {
    require(!connectTimeout.isNegative() && !connectTimeout.isZero(), CONNECT_TIMEOUT,
        "must be positive");
    require(!socketTimeout.isNegative() && !socketTimeout.isZero(), SOCKET_TIMEOUT,
        "must be positive");
    require(!requestTimeout.isNegative(), REQUEST_TIMEOUT, "must not be negative (0 = off)");
    require(maxConnections >= 1, MAX_CONNECTIONS, "must be at least 1");
    require(attempts >= 1, ATTEMPTS, "must be at least 1 (1 = no retry)");
    require(!retryInterval.isNegative(), RETRY_INTERVAL, "must not be negative");
    require(partSize >= MIN_PART_SIZE, PART_SIZE, "must be at least 100 KB (OSS refuses smaller"
        + " parts)");
    require(partSize <= 5L << 30, PART_SIZE, "must be at most 5 GB");
    require(multipartThreshold >= 1, MULTIPART_THRESHOLD, "must be positive");
    require(multipartThreshold <= Integer.MAX_VALUE - 8, MULTIPART_THRESHOLD,
        "must be below 2 GB (the buffer before a multipart upload starts)");
    require(listPageSize >= 1 && listPageSize <= 1000, LIST_PAGE_SIZE, "must be 1 to 1000");
  }

  private static void require(boolean ok, String key, String what) {
    if (!ok) {
      throw new IllegalArgumentException("Option '" + key + "' " + what + ".");
    }
  }

  /**
   * Parses and validates catalog options.
   *
   * @throws IllegalArgumentException naming the key and the fix
   */
  public static OssOptions from(Map<String, String> options) {
    Options o = Options.of(options);
    String endpoint = o.getRequired(ENDPOINT, "the OSS endpoint, for example"
        + " https://oss-cn-hangzhou.aliyuncs.com");
    String token = o.get(SECURITY_TOKEN);
    return new OssOptions(endpoint.trim(),
        o.getRequired(ACCESS_KEY_ID, "the access key id of the account or RAM user").trim(),
        o.getRequired(ACCESS_KEY_SECRET, "the access key secret that belongs to '"
            + ACCESS_KEY_ID + "'"),
        token == null || token.isBlank() ? null : token.trim(),
        o.getDuration(CONNECT_TIMEOUT, CONNECT_TIMEOUT_DEFAULT),
        o.getDuration(SOCKET_TIMEOUT, SOCKET_TIMEOUT_DEFAULT),
        o.getDuration(REQUEST_TIMEOUT, REQUEST_TIMEOUT_DEFAULT),
        o.getInt(MAX_CONNECTIONS, MAX_CONNECTIONS_DEFAULT),
        o.getInt(ATTEMPTS, ATTEMPTS_DEFAULT),
        o.getDuration(RETRY_INTERVAL, RETRY_INTERVAL_DEFAULT),
        bytes(o, MULTIPART_THRESHOLD, MULTIPART_THRESHOLD_DEFAULT),
        bytes(o, PART_SIZE, PART_SIZE_DEFAULT),
        o.getInt(LIST_PAGE_SIZE, LIST_PAGE_SIZE_DEFAULT),
        o.getBoolean(PATH_STYLE, PATH_STYLE_DEFAULT));
  }

  /** A size: a number of bytes, or a number with a unit: {@code 8 MB}, {@code 512kb}, {@code 1g}. */
  static long bytes(Options o, String key, long defaultValue) {
    String value = o.get(key);
    if (value == null) {
      return defaultValue;
    }
    String text = value.trim().toLowerCase(Locale.ROOT);
    int i = 0;
    while (i < text.length() && Character.isDigit(text.charAt(i))) {
      i++;
    }
    long shift = switch (text.substring(i).trim()) {
      case "", "b" -> 0;
      case "k", "kb" -> 10;
      case "m", "mb" -> 20;
      case "g", "gb" -> 30;
      default -> -1;
    };
    if (i == 0 || shift < 0) {
      throw new IllegalArgumentException("Option '" + key + "' is '" + value
          + "'; write a number of bytes, or a number and a unit: \"8 MB\", \"512 KB\", \"1 GB\".");
    }
    return Long.parseLong(text.substring(0, i)) << shift;
  }

  /** The options without secrets, for logs and messages. */
  @Override
  public String toString() {
    return "OssOptions{" + ENDPOINT + "=" + endpoint + ", " + ACCESS_KEY_ID + "=" + accessKeyId
        + ", " + ACCESS_KEY_SECRET + "=******, " + SECURITY_TOKEN + "="
        + (securityToken == null ? "(none)" : "******") + ", " + CONNECT_TIMEOUT + "="
        + Durations.format(connectTimeout) + ", " + SOCKET_TIMEOUT + "="
        + Durations.format(socketTimeout) + ", " + REQUEST_TIMEOUT + "="
        + Durations.format(requestTimeout) + ", " + MAX_CONNECTIONS + "=" + maxConnections + ", "
        + ATTEMPTS + "=" + attempts + ", " + RETRY_INTERVAL + "=" + Durations.format(retryInterval)
        + ", " + MULTIPART_THRESHOLD + "=" + multipartThreshold + ", " + PART_SIZE + "=" + partSize
        + ", " + LIST_PAGE_SIZE + "=" + listPageSize + ", " + PATH_STYLE + "=" + pathStyle + "}";
  }
}
