package dev.lockstep.fs.oss;

import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.Durations;
import dev.lockstep.options.OptionSet;
import dev.lockstep.options.Options;
import java.time.Duration;
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
public record OssOptions(
    String endpoint,
    String accessKeyId,
    String accessKeySecret,
    String securityToken,
    Duration connectTimeout,
    Duration socketTimeout,
    Duration requestTimeout,
    int maxConnections,
    int attempts,
    Duration retryInterval,
    long multipartThreshold,
    long partSize,
    int listPageSize,
    boolean pathStyle) {

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

  static final ConfigOption<String> ENDPOINT_OPTION =
      ConfigOption.key(ENDPOINT)
          .stringType()
          .noDefaultValue()
          .withDefaultText("— (required)")
          .withDescription("`https://oss-cn-hangzhou.aliyuncs.com`, or an internal endpoint");
  static final ConfigOption<String> ACCESS_KEY_ID_OPTION =
      ConfigOption.key(ACCESS_KEY_ID)
          .stringType()
          .noDefaultValue()
          .withDefaultText("— (required)")
          .withDescription("access key id of the account or RAM user");
  static final ConfigOption<String> ACCESS_KEY_SECRET_OPTION =
      ConfigOption.key(ACCESS_KEY_SECRET)
          .stringType()
          .noDefaultValue()
          .secret()
          .withDefaultText("— (required)")
          .withDescription(
              "**secret**: never logged, never in a message (`OssOptions.toString` prints"
                  + " `******`)");
  static final ConfigOption<String> SECURITY_TOKEN_OPTION =
      ConfigOption.key(SECURITY_TOKEN)
          .stringType()
          .noDefaultValue()
          .secret()
          .withDefaultText("none")
          .withDescription("**secret**: STS token, for temporary credentials");
  static final ConfigOption<Duration> CONNECT_TIMEOUT_OPTION =
      ConfigOption.key(CONNECT_TIMEOUT)
          .durationType()
          .defaultValue(CONNECT_TIMEOUT_DEFAULT)
          .require(Requirement.positive())
          .withDescription("connect timeout");
  static final ConfigOption<Duration> SOCKET_TIMEOUT_OPTION =
      ConfigOption.key(SOCKET_TIMEOUT)
          .durationType()
          .defaultValue(SOCKET_TIMEOUT_DEFAULT)
          .require(Requirement.positive())
          .withDescription("socket timeout: longest silence while waiting for an answer");
  static final ConfigOption<Duration> REQUEST_TIMEOUT_OPTION =
      ConfigOption.key(REQUEST_TIMEOUT)
          .durationType()
          .defaultValue(REQUEST_TIMEOUT_DEFAULT)
          .require(d -> !d.isNegative(), "0 or more (0 = off)")
          .withDefaultText("`0` (off)")
          .withDescription(
              "whole-request timeout (the SDK's request timeout); also caps a deadline"
                  + " write's own timeout when shorter");
  static final ConfigOption<Integer> MAX_CONNECTIONS_OPTION =
      ConfigOption.key(MAX_CONNECTIONS)
          .intType()
          .defaultValue(MAX_CONNECTIONS_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription("connection pool size per client");
  static final ConfigOption<Integer> ATTEMPTS_OPTION =
      ConfigOption.key(ATTEMPTS)
          .intType()
          .defaultValue(ATTEMPTS_DEFAULT)
          .require(i -> i >= 1, "at least 1 (1 = no retry)")
          .withDescription("attempts per request on transient errors (1 = no retry)");
  static final ConfigOption<Duration> RETRY_INTERVAL_OPTION =
      ConfigOption.key(RETRY_INTERVAL)
          .durationType()
          .defaultValue(RETRY_INTERVAL_DEFAULT)
          .require(Requirement.notNegative())
          .withDescription(
              "first wait between our own retries of publishing requests; doubles,"
                  + " jittered, at most 5 s");
  static final ConfigOption<Long> MULTIPART_THRESHOLD_OPTION =
      ConfigOption.key(MULTIPART_THRESHOLD)
          .sizeType()
          .defaultValue(MULTIPART_THRESHOLD_DEFAULT)
          .require(b -> b >= 1, "positive")
          .require(
              b -> b <= Integer.MAX_VALUE - 8,
              "below 2 GB (the buffer before a multipart upload starts)")
          .withDescription(
              "writes larger than this use a multipart upload (also the in-memory"
                  + " buffer before it starts)");
  static final ConfigOption<Long> PART_SIZE_OPTION =
      ConfigOption.key(PART_SIZE)
          .sizeType()
          .defaultValue(PART_SIZE_DEFAULT)
          .require(b -> b >= MIN_PART_SIZE, "at least 100 KB (OSS refuses smaller parts)")
          .require(b -> b <= 5L << 30, "at most 5 GB")
          .withDescription("part size (100 KB to 5 GB; OSS refuses smaller parts)");
  static final ConfigOption<Integer> LIST_PAGE_SIZE_OPTION =
      ConfigOption.key(LIST_PAGE_SIZE)
          .intType()
          .defaultValue(LIST_PAGE_SIZE_DEFAULT)
          .require(Requirement.between(1, 1000))
          .withDescription("keys per ListObjectsV2 request (1 to 1000)");
  static final ConfigOption<Boolean> PATH_STYLE_OPTION =
      ConfigOption.key(PATH_STYLE)
          .booleanType()
          .defaultValue(PATH_STYLE_DEFAULT)
          .withDescription(
              "`endpoint/bucket/key` instead of `bucket.endpoint/key`; the SDK turns it on"
                  + " by itself for an IP or `localhost` endpoint");

  /** What the OSS store reads: every key under {@code fs.oss.}. */
  public static final OptionSet OPTIONS =
      OptionSet.of("the OSS store", "fs-oss/README.md")
          .namespace("fs.oss.")
          .option(
              ENDPOINT_OPTION,
              ACCESS_KEY_ID_OPTION,
              ACCESS_KEY_SECRET_OPTION,
              SECURITY_TOKEN_OPTION,
              CONNECT_TIMEOUT_OPTION,
              SOCKET_TIMEOUT_OPTION,
              REQUEST_TIMEOUT_OPTION,
              MAX_CONNECTIONS_OPTION,
              ATTEMPTS_OPTION,
              RETRY_INTERVAL_OPTION,
              MULTIPART_THRESHOLD_OPTION,
              PART_SIZE_OPTION,
              LIST_PAGE_SIZE_OPTION,
              PATH_STYLE_OPTION)
          .build();

  public OssOptions {
    CONNECT_TIMEOUT_OPTION.check(connectTimeout);
    SOCKET_TIMEOUT_OPTION.check(socketTimeout);
    REQUEST_TIMEOUT_OPTION.check(requestTimeout);
    MAX_CONNECTIONS_OPTION.check(maxConnections);
    ATTEMPTS_OPTION.check(attempts);
    RETRY_INTERVAL_OPTION.check(retryInterval);
    PART_SIZE_OPTION.check(partSize);
    MULTIPART_THRESHOLD_OPTION.check(multipartThreshold);
    LIST_PAGE_SIZE_OPTION.check(listPageSize);
  }

  /**
   * Parses and validates catalog options.
   *
   * @throws IllegalArgumentException naming the key and the fix; an unknown {@code fs.oss.*} key is
   *     refused with the nearest known key ({@link dev.lockstep.options.UnknownOptionException})
   */
  public static OssOptions from(Map<String, String> options) {
    OPTIONS.checkNamespace(options);
    Options o = Options.of(options);
    String endpoint =
        o.getRequired(
            ENDPOINT, "the OSS endpoint, for example" + " https://oss-cn-hangzhou.aliyuncs.com");
    String token = o.get(SECURITY_TOKEN_OPTION);
    return new OssOptions(
        endpoint.trim(),
        o.getRequired(ACCESS_KEY_ID, "the access key id of the account or RAM user").trim(),
        o.getRequired(
            ACCESS_KEY_SECRET, "the access key secret that belongs to '" + ACCESS_KEY_ID + "'"),
        token == null || token.isBlank() ? null : token.trim(),
        o.get(CONNECT_TIMEOUT_OPTION),
        o.get(SOCKET_TIMEOUT_OPTION),
        o.get(REQUEST_TIMEOUT_OPTION),
        o.get(MAX_CONNECTIONS_OPTION),
        o.get(ATTEMPTS_OPTION),
        o.get(RETRY_INTERVAL_OPTION),
        o.get(MULTIPART_THRESHOLD_OPTION),
        o.get(PART_SIZE_OPTION),
        o.get(LIST_PAGE_SIZE_OPTION),
        o.get(PATH_STYLE_OPTION));
  }

  /** The options without secrets, for logs and messages. */
  @Override
  public String toString() {
    return "OssOptions{"
        + ENDPOINT
        + "="
        + endpoint
        + ", "
        + ACCESS_KEY_ID
        + "="
        + accessKeyId
        + ", "
        + ACCESS_KEY_SECRET
        + "=******, "
        + SECURITY_TOKEN
        + "="
        + (securityToken == null ? "(none)" : "******")
        + ", "
        + CONNECT_TIMEOUT
        + "="
        + Durations.format(connectTimeout)
        + ", "
        + SOCKET_TIMEOUT
        + "="
        + Durations.format(socketTimeout)
        + ", "
        + REQUEST_TIMEOUT
        + "="
        + Durations.format(requestTimeout)
        + ", "
        + MAX_CONNECTIONS
        + "="
        + maxConnections
        + ", "
        + ATTEMPTS
        + "="
        + attempts
        + ", "
        + RETRY_INTERVAL
        + "="
        + Durations.format(retryInterval)
        + ", "
        + MULTIPART_THRESHOLD
        + "="
        + multipartThreshold
        + ", "
        + PART_SIZE
        + "="
        + partSize
        + ", "
        + LIST_PAGE_SIZE
        + "="
        + listPageSize
        + ", "
        + PATH_STYLE
        + "="
        + pathStyle
        + "}";
  }
}
