package dev.lockstep.fs.s3;

import dev.lockstep.fs.conditional.ConditionalPublisher;
import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.Durations;
import dev.lockstep.options.OptionSet;
import dev.lockstep.options.Options;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * The options of the S3 store ({@code s3.*}), parsed once and validated. Secrets ({@code
 * s3.secret-key}, {@code s3.session-token}) are kept here but never printed: {@link #toString()}
 * masks them, and no log line of this module prints an option map.
 *
 * @param endpoint {@value #ENDPOINT}: the service URI, or {@code null} for AWS S3 in {@code region}
 * @param region {@value #REGION}: the signing region, or {@code null}: with an endpoint {@value
 *     #REGION_FALLBACK}, without one the SDK's region chain (then {@value #REGION_FALLBACK})
 * @param accessKey {@value #ACCESS_KEY}, or {@code null} for the SDK's default credential chain
 * @param secretKey {@value #SECRET_KEY} (secret; required together with the access key)
 * @param sessionToken {@value #SESSION_TOKEN} (secret; optional, for temporary credentials)
 * @param pathStyleAccess {@value #PATH_STYLE_ACCESS}: {@code http://host/bucket/key} addressing
 * @param conditionalWrites {@value #CONDITIONAL_WRITES}: see {@link ConditionalWrites}
 * @param connectionTimeout {@value #CONNECTION_TIMEOUT}: TCP connect timeout
 * @param socketTimeout {@value #SOCKET_TIMEOUT}: longest silence on an open connection
 * @param apiCallTimeout {@value #API_CALL_TIMEOUT}: one SDK call, all retries included
 * @param apiCallAttemptTimeout {@value #API_CALL_ATTEMPT_TIMEOUT}: one HTTP attempt
 * @param maxConnections {@value #MAX_CONNECTIONS}: HTTP connection pool size
 * @param maxAttempts {@value #RETRY_MAX_ATTEMPTS}: attempts per request, the first included; also
 *     bounds the store's own retry loop for conditional writes
 * @param retryBaseDelay {@value #RETRY_BASE_DELAY}: first back-off, doubled per retry, with jitter
 * @param retryMaxDelay {@value #RETRY_MAX_DELAY}: longest back-off
 * @param multipartThreshold {@value #MULTIPART_THRESHOLD}: writes larger than this use multipart
 * @param multipartPartSize {@value #MULTIPART_PART_SIZE}: size of each part but the last
 * @param assumedRole {@value #ASSUMED_ROLE_ARN} and its settings, or {@code null}: the store signs
 *     with temporary credentials of that role, asked of STS with the credentials above
 */
public record S3Options(
    URI endpoint,
    String region,
    String accessKey,
    String secretKey,
    String sessionToken,
    boolean pathStyleAccess,
    ConditionalWrites conditionalWrites,
    Duration connectionTimeout,
    Duration socketTimeout,
    Duration apiCallTimeout,
    Duration apiCallAttemptTimeout,
    int maxConnections,
    int maxAttempts,
    Duration retryBaseDelay,
    Duration retryMaxDelay,
    long multipartThreshold,
    long multipartPartSize,
    AssumedRole assumedRole) {

  public static final String ENDPOINT = "s3.endpoint";
  public static final String REGION = "s3.region";

  /** The region used when neither the option nor the SDK's region chain gives one. */
  public static final String REGION_FALLBACK = "us-east-1";

  public static final String ACCESS_KEY = "s3.access-key";

  /** Secret: never logged. */
  public static final String SECRET_KEY = "s3.secret-key";

  /** Secret: never logged. */
  public static final String SESSION_TOKEN = "s3.session-token";

  public static final String PATH_STYLE_ACCESS = "s3.path-style-access";
  public static final boolean PATH_STYLE_ACCESS_DEFAULT = false;

  /**
   * {@code true} on a store that ignores {@code If-None-Match} makes every atomic create an
   * overwrite: two commits can both "win" a snapshot and one is lost. Use {@code auto} or {@code
   * false} unless the store is known to honour the header atomically.
   */
  public static final String CONDITIONAL_WRITES = "s3.conditional-writes";

  public static final ConditionalWrites CONDITIONAL_WRITES_DEFAULT = ConditionalWrites.AUTO;
  public static final String CONNECTION_TIMEOUT = "s3.connection-timeout";
  public static final Duration CONNECTION_TIMEOUT_DEFAULT = Duration.ofSeconds(10);
  public static final String SOCKET_TIMEOUT = "s3.socket-timeout";
  public static final Duration SOCKET_TIMEOUT_DEFAULT = Duration.ofSeconds(60);
  public static final String API_CALL_TIMEOUT = "s3.api-call-timeout";
  public static final Duration API_CALL_TIMEOUT_DEFAULT = Duration.ofMinutes(10);
  public static final String API_CALL_ATTEMPT_TIMEOUT = "s3.api-call-attempt-timeout";
  public static final Duration API_CALL_ATTEMPT_TIMEOUT_DEFAULT = Duration.ofMinutes(2);
  public static final String MAX_CONNECTIONS = "s3.max-connections";
  public static final int MAX_CONNECTIONS_DEFAULT = 96;
  public static final String RETRY_MAX_ATTEMPTS = "s3.retry.max-attempts";
  public static final int RETRY_MAX_ATTEMPTS_DEFAULT = 5;
  public static final String RETRY_BASE_DELAY = "s3.retry.base-delay";
  public static final Duration RETRY_BASE_DELAY_DEFAULT = Duration.ofMillis(100);
  public static final String RETRY_MAX_DELAY = "s3.retry.max-delay";
  public static final Duration RETRY_MAX_DELAY_DEFAULT = Duration.ofSeconds(20);
  public static final String MULTIPART_THRESHOLD = "s3.multipart.threshold";
  public static final long MULTIPART_THRESHOLD_DEFAULT = 32L << 20;
  public static final String MULTIPART_PART_SIZE = "s3.multipart.part-size";
  public static final long MULTIPART_PART_SIZE_DEFAULT = 8L << 20;
  public static final String ASSUMED_ROLE_ARN = "s3.assumed-role.arn";
  public static final String ASSUMED_ROLE_SESSION_NAME = "s3.assumed-role.session-name";
  public static final String ASSUMED_ROLE_SESSION_NAME_DEFAULT = "lockstep";
  public static final String ASSUMED_ROLE_SESSION_DURATION = "s3.assumed-role.session-duration";
  public static final Duration ASSUMED_ROLE_SESSION_DURATION_DEFAULT = Duration.ofHours(1);
  public static final String ASSUMED_ROLE_EXTERNAL_ID = "s3.assumed-role.external-id";
  public static final String ASSUMED_ROLE_POLICY = "s3.assumed-role.policy";
  public static final String ASSUMED_ROLE_STS_ENDPOINT = "s3.assumed-role.sts-endpoint";
  public static final String ASSUMED_ROLE_STS_REGION = "s3.assumed-role.sts-region";

  /** S3's smallest part (all parts but the last). */
  public static final long MIN_PART_SIZE = 5L << 20;

  /** S3's largest part, and the largest buffer this store keeps in memory. */
  public static final long MAX_PART_SIZE = 1L << 30;

  static final ConfigOption<String> ENDPOINT_OPTION =
      ConfigOption.key(ENDPOINT)
          .stringType()
          .noDefaultValue()
          .withDefaultText("AWS")
          .withDescription(
              "`http(s)://host[:port]` of an S3-compatible store; unset = AWS S3 in"
                  + " `s3.region`");
  static final ConfigOption<String> REGION_OPTION =
      ConfigOption.key(REGION)
          .stringType()
          .noDefaultValue()
          .withDefaultText("AWS: SDK region chain, else `us-east-1`; other endpoints: `us-east-1`")
          .withDescription("signing region (must be the bucket's region on AWS)");
  static final ConfigOption<String> ACCESS_KEY_OPTION =
      ConfigOption.key(ACCESS_KEY)
          .stringType()
          .noDefaultValue()
          .withDescription("with `s3.secret-key`; neither = the SDK's default credential chain");
  static final ConfigOption<String> SECRET_KEY_OPTION =
      ConfigOption.key(SECRET_KEY)
          .stringType()
          .noDefaultValue()
          .secret()
          .withDescription("**secret**, never logged or printed");
  static final ConfigOption<String> SESSION_TOKEN_OPTION =
      ConfigOption.key(SESSION_TOKEN)
          .stringType()
          .noDefaultValue()
          .secret()
          .withDescription("**secret**; temporary credentials (needs both keys)");
  static final ConfigOption<Boolean> PATH_STYLE_ACCESS_OPTION =
      ConfigOption.key(PATH_STYLE_ACCESS)
          .booleanType()
          .defaultValue(PATH_STYLE_ACCESS_DEFAULT)
          .withDescription(
              "`http://host/bucket/key` addressing; most self-hosted stores need `true`");
  static final ConfigOption<ConditionalWrites> CONDITIONAL_WRITES_OPTION =
      ConfigOption.key(CONDITIONAL_WRITES)
          .enumType(ConditionalWrites.class)
          .defaultValue(CONDITIONAL_WRITES_DEFAULT)
          .withDescription(
              "`auto` | `true` | `false`, see below. **`true` on a store that ignores"
                  + " the header makes every commit an overwrite: two writers can both \"win\" a snapshot"
                  + " and one commit is lost.**");
  static final ConfigOption<Duration> CONNECTION_TIMEOUT_OPTION =
      ConfigOption.key(CONNECTION_TIMEOUT)
          .durationType()
          .defaultValue(CONNECTION_TIMEOUT_DEFAULT)
          .require(Requirement.positive())
          .withDescription("TCP connect timeout");
  static final ConfigOption<Duration> SOCKET_TIMEOUT_OPTION =
      ConfigOption.key(SOCKET_TIMEOUT)
          .durationType()
          .defaultValue(SOCKET_TIMEOUT_DEFAULT)
          .require(Requirement.positive())
          .withDescription("longest silence on an open connection");
  static final ConfigOption<Duration> API_CALL_ATTEMPT_TIMEOUT_OPTION =
      ConfigOption.key(API_CALL_ATTEMPT_TIMEOUT)
          .durationType()
          .defaultValue(API_CALL_ATTEMPT_TIMEOUT_DEFAULT)
          .require(Requirement.positive())
          .withDescription("one HTTP attempt");
  static final ConfigOption<Duration> API_CALL_TIMEOUT_OPTION =
      ConfigOption.key(API_CALL_TIMEOUT)
          .durationType()
          .defaultValue(API_CALL_TIMEOUT_DEFAULT)
          .require(Requirement.positive())
          .withDescription("one SDK call, retries included");
  static final ConfigOption<Integer> MAX_CONNECTIONS_OPTION =
      ConfigOption.key(MAX_CONNECTIONS)
          .intType()
          .defaultValue(MAX_CONNECTIONS_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription("HTTP connection pool per store");
  static final ConfigOption<Integer> RETRY_MAX_ATTEMPTS_OPTION =
      ConfigOption.key(RETRY_MAX_ATTEMPTS)
          .intType()
          .defaultValue(RETRY_MAX_ATTEMPTS_DEFAULT)
          .require(i -> i >= 1, "at least 1 (the first attempt counts)")
          .withDescription(
              "attempts per request, the first included; also bounds the"
                  + " conditional-write loop");
  static final ConfigOption<Duration> RETRY_BASE_DELAY_OPTION =
      ConfigOption.key(RETRY_BASE_DELAY)
          .durationType()
          .defaultValue(RETRY_BASE_DELAY_DEFAULT)
          .require(Requirement.positive())
          .withDescription("first back-off, doubled per retry, jittered");
  static final ConfigOption<Duration> RETRY_MAX_DELAY_OPTION =
      ConfigOption.key(RETRY_MAX_DELAY)
          .durationType()
          .defaultValue(RETRY_MAX_DELAY_DEFAULT)
          .require(Requirement.positive())
          .withDescription("longest back-off");
  static final ConfigOption<Long> MULTIPART_THRESHOLD_OPTION =
      ConfigOption.key(MULTIPART_THRESHOLD)
          .sizeType()
          .defaultValue(MULTIPART_THRESHOLD_DEFAULT)
          .withDescription(
              "writes larger than this use multipart upload (5 MiB..1 GiB, ≥ part" + " size)");
  static final ConfigOption<Long> MULTIPART_PART_SIZE_OPTION =
      ConfigOption.key(MULTIPART_PART_SIZE)
          .sizeType()
          .defaultValue(MULTIPART_PART_SIZE_DEFAULT)
          .withDescription("part size, 5 MiB..1 GiB");

  static final ConfigOption<String> ASSUMED_ROLE_ARN_OPTION =
      ConfigOption.key(ASSUMED_ROLE_ARN)
          .stringType()
          .noDefaultValue()
          .withDescription(
              "an IAM role to assume through STS (`arn:aws:iam::<account>:role/<name>`): the"
                  + " store signs with its temporary credentials, renewed before they expire; the keys above"
                  + " (or the default chain) are what asks STS");
  static final ConfigOption<String> ASSUMED_ROLE_SESSION_NAME_OPTION =
      ConfigOption.key(ASSUMED_ROLE_SESSION_NAME)
          .stringType()
          .defaultValue(ASSUMED_ROLE_SESSION_NAME_DEFAULT)
          .withDescription("the role session's name (CloudTrail shows it)");
  static final ConfigOption<Duration> ASSUMED_ROLE_SESSION_DURATION_OPTION =
      ConfigOption.key(ASSUMED_ROLE_SESSION_DURATION)
          .durationType()
          .defaultValue(ASSUMED_ROLE_SESSION_DURATION_DEFAULT)
          .require(
              d ->
                  d.compareTo(Duration.ofMinutes(15)) >= 0
                      && d.compareTo(Duration.ofHours(12)) <= 0,
              "15 min to 12 h (STS's limits)")
          .withDescription(
              "lifetime of each set of temporary credentials, 15 min..12 h (at most the"
                  + " role's maximum session duration)");
  static final ConfigOption<String> ASSUMED_ROLE_EXTERNAL_ID_OPTION =
      ConfigOption.key(ASSUMED_ROLE_EXTERNAL_ID)
          .stringType()
          .noDefaultValue()
          .secret()
          .withDescription("**secret**; the external id the role's trust policy asks for");
  static final ConfigOption<String> ASSUMED_ROLE_POLICY_OPTION =
      ConfigOption.key(ASSUMED_ROLE_POLICY)
          .stringType()
          .noDefaultValue()
          .withDescription("a session policy (JSON) that narrows the role's permissions");
  static final ConfigOption<String> ASSUMED_ROLE_STS_ENDPOINT_OPTION =
      ConfigOption.key(ASSUMED_ROLE_STS_ENDPOINT)
          .stringType()
          .noDefaultValue()
          .withDefaultText("the SDK's STS endpoint of the region")
          .withDescription("`http(s)://host[:port]` of STS");
  static final ConfigOption<String> ASSUMED_ROLE_STS_REGION_OPTION =
      ConfigOption.key(ASSUMED_ROLE_STS_REGION)
          .stringType()
          .noDefaultValue()
          .withDefaultText("the store's region")
          .withDescription("signing region of the STS requests");

  /** What the S3 store reads: every key under {@code s3.}. */
  public static final OptionSet OPTIONS =
      OptionSet.of("the S3 store", "fs-s3/README.md")
          .namespace("s3.")
          .option(
              ENDPOINT_OPTION,
              REGION_OPTION,
              ACCESS_KEY_OPTION,
              SECRET_KEY_OPTION,
              SESSION_TOKEN_OPTION,
              PATH_STYLE_ACCESS_OPTION,
              CONDITIONAL_WRITES_OPTION,
              CONNECTION_TIMEOUT_OPTION,
              SOCKET_TIMEOUT_OPTION,
              API_CALL_ATTEMPT_TIMEOUT_OPTION,
              API_CALL_TIMEOUT_OPTION,
              MAX_CONNECTIONS_OPTION,
              RETRY_MAX_ATTEMPTS_OPTION,
              RETRY_BASE_DELAY_OPTION,
              RETRY_MAX_DELAY_OPTION,
              MULTIPART_THRESHOLD_OPTION,
              MULTIPART_PART_SIZE_OPTION,
              ASSUMED_ROLE_ARN_OPTION,
              ASSUMED_ROLE_SESSION_NAME_OPTION,
              ASSUMED_ROLE_SESSION_DURATION_OPTION,
              ASSUMED_ROLE_EXTERNAL_ID_OPTION,
              ASSUMED_ROLE_POLICY_OPTION,
              ASSUMED_ROLE_STS_ENDPOINT_OPTION,
              ASSUMED_ROLE_STS_REGION_OPTION)
          .build();

  /**
   * The role the store assumes ({@value #ASSUMED_ROLE_ARN} and its settings).
   *
   * @param arn the role's ARN
   * @param sessionName the role session's name
   * @param sessionDuration the lifetime of one set of temporary credentials
   * @param externalId the external id (secret), or {@code null}
   * @param policy a session policy, or {@code null}
   * @param stsEndpoint STS's URI, or {@code null} for the SDK's endpoint of {@code stsRegion}
   * @param stsRegion the STS signing region, or {@code null} for the store's region
   */
  public record AssumedRole(
      String arn,
      String sessionName,
      Duration sessionDuration,
      String externalId,
      String policy,
      URI stsEndpoint,
      String stsRegion) {

    public AssumedRole {
      if (!arn.startsWith("arn:") || !arn.contains(":role/")) {
        throw new IllegalArgumentException(
            "Option '"
                + ASSUMED_ROLE_ARN
                + "' is '"
                + arn
                + "', not a role ARN; write for example arn:aws:iam::123456789012:role/lakehouse-writer.");
      }
      ASSUMED_ROLE_SESSION_DURATION_OPTION.check(sessionDuration);
    }

    @Override
    public String toString() {
      return "AssumedRole{arn="
          + arn
          + ", sessionName="
          + sessionName
          + ", sessionDuration="
          + Durations.format(sessionDuration)
          + ", externalId="
          + (externalId == null ? "-" : "******")
          + ", policy="
          + (policy == null ? "-" : "given")
          + ", stsEndpoint="
          + (stsEndpoint == null ? "default" : stsEndpoint)
          + ", stsRegion="
          + stsRegion
          + "}";
    }
  }

  /** The value of {@value #CONDITIONAL_WRITES}. */
  public enum ConditionalWrites {
    /**
     * AWS S3 endpoints (no {@code s3.endpoint}, or a host ending in {@code amazonaws.com}): on,
     * since AWS honours {@code If-None-Match: *} in every region. Any other endpoint: probed once
     * per endpoint and bucket by {@link ConditionalWriteProbe}; on only when the store refuses to
     * overwrite the probe object with 412.
     */
    AUTO,
    /**
     * Always on; the operator vouches that the store honours {@code If-None-Match: *} atomically.
     */
    TRUE,
    /** Off: the store declares no atomic create, so commits need {@code lock.enabled=true}. */
    FALSE;

    static ConditionalWrites parse(String text) {
      String normalized = text.trim().toLowerCase(Locale.ROOT);
      for (ConditionalWrites value : values()) {
        if (value.name().toLowerCase(Locale.ROOT).equals(normalized)) {
          return value;
        }
      }
      throw new IllegalArgumentException(
          "Option '"
              + CONDITIONAL_WRITES
              + "' is '"
              + text
              + "'; write one of "
              + Arrays.stream(values()).map(v -> v.name().toLowerCase(Locale.ROOT)).toList()
              + ".");
    }
  }

  public S3Options {
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException(
          "Options '"
              + ACCESS_KEY
              + "' and '"
              + SECRET_KEY
              + "' go together: set both, or neither to use the default AWS credential chain"
              + " (environment, system properties, profile, container or instance role).");
    }
    if (sessionToken != null && accessKey == null) {
      throw new IllegalArgumentException(
          "Option '"
              + SESSION_TOKEN
              + "' needs '"
              + ACCESS_KEY
              + "' and '"
              + SECRET_KEY
              + "' as well.");
    }
    CONNECTION_TIMEOUT_OPTION.check(connectionTimeout);
    SOCKET_TIMEOUT_OPTION.check(socketTimeout);
    API_CALL_TIMEOUT_OPTION.check(apiCallTimeout);
    API_CALL_ATTEMPT_TIMEOUT_OPTION.check(apiCallAttemptTimeout);
    RETRY_BASE_DELAY_OPTION.check(retryBaseDelay);
    RETRY_MAX_DELAY_OPTION.check(retryMaxDelay);
    MAX_CONNECTIONS_OPTION.check(maxConnections);
    RETRY_MAX_ATTEMPTS_OPTION.check(maxAttempts);
    if (multipartPartSize < MIN_PART_SIZE || multipartPartSize > MAX_PART_SIZE) {
      throw new IllegalArgumentException(
          "Option '"
              + MULTIPART_PART_SIZE
              + "' is "
              + multipartPartSize
              + " bytes; S3 needs parts of 5 MiB to 1 GiB, for example \"8 MiB\".");
    }
    if (multipartThreshold < multipartPartSize || multipartThreshold > MAX_PART_SIZE) {
      throw new IllegalArgumentException(
          "Option '"
              + MULTIPART_THRESHOLD
              + "' is "
              + multipartThreshold
              + " bytes; it must be at least '"
              + MULTIPART_PART_SIZE
              + "' ("
              + multipartPartSize
              + ") and at most 1 GiB.");
    }
  }

  /**
   * Parses the {@code s3.*} options; every other key is ignored.
   *
   * @throws IllegalArgumentException naming the key and the fix; an unknown {@code s3.*} key is
   *     refused with the nearest known key ({@link dev.lockstep.options.UnknownOptionException})
   */
  public static S3Options from(Map<String, String> options) {
    OPTIONS.checkNamespace(options);
    Options o = Options.of(options);
    String endpoint = blankToNull(o.get(ENDPOINT_OPTION));
    return new S3Options(
        endpoint == null ? null : parseEndpoint(ENDPOINT, endpoint),
        blankToNull(o.get(REGION_OPTION)),
        blankToNull(o.get(ACCESS_KEY_OPTION)),
        blankToNull(o.get(SECRET_KEY_OPTION)),
        blankToNull(o.get(SESSION_TOKEN_OPTION)),
        o.get(PATH_STYLE_ACCESS_OPTION),
        o.get(CONDITIONAL_WRITES_OPTION),
        o.get(CONNECTION_TIMEOUT_OPTION),
        o.get(SOCKET_TIMEOUT_OPTION),
        o.get(API_CALL_TIMEOUT_OPTION),
        o.get(API_CALL_ATTEMPT_TIMEOUT_OPTION),
        o.get(MAX_CONNECTIONS_OPTION),
        o.get(RETRY_MAX_ATTEMPTS_OPTION),
        o.get(RETRY_BASE_DELAY_OPTION),
        o.get(RETRY_MAX_DELAY_OPTION),
        o.get(MULTIPART_THRESHOLD_OPTION),
        o.get(MULTIPART_PART_SIZE_OPTION),
        assumedRole(options, o));
  }

  private static AssumedRole assumedRole(Map<String, String> options, Options o) {
    String arn = blankToNull(o.get(ASSUMED_ROLE_ARN_OPTION));
    if (arn == null) {
      for (String key : options.keySet()) {
        if (key.startsWith("s3.assumed-role.") && !key.equals(ASSUMED_ROLE_ARN)) {
          throw new IllegalArgumentException(
              "Option '"
                  + key
                  + "' is a setting of an assumed role,"
                  + " but '"
                  + ASSUMED_ROLE_ARN
                  + "' is not set; set it to the role's ARN, or remove '"
                  + key
                  + "'.");
        }
      }
      return null;
    }
    String stsEndpoint = blankToNull(o.get(ASSUMED_ROLE_STS_ENDPOINT_OPTION));
    return new AssumedRole(
        arn,
        o.get(ASSUMED_ROLE_SESSION_NAME_OPTION).trim(),
        o.get(ASSUMED_ROLE_SESSION_DURATION_OPTION),
        blankToNull(o.get(ASSUMED_ROLE_EXTERNAL_ID_OPTION)),
        blankToNull(o.get(ASSUMED_ROLE_POLICY_OPTION)),
        stsEndpoint == null ? null : parseEndpoint(ASSUMED_ROLE_STS_ENDPOINT, stsEndpoint),
        blankToNull(o.get(ASSUMED_ROLE_STS_REGION_OPTION)));
  }

  /** How the conditional publisher retries a conditional PutObject, from these options. */
  ConditionalPublisher.Retries publishRetries() {
    return new ConditionalPublisher.Retries(
        maxAttempts, retryBaseDelay, retryMaxDelay, RETRY_MAX_ATTEMPTS);
  }

  /** Whether the endpoint is AWS S3 itself (none given, or a host under {@code amazonaws.com}). */
  public boolean isAwsEndpoint() {
    if (endpoint == null) {
      return true;
    }
    String host = endpoint.getHost() == null ? "" : endpoint.getHost().toLowerCase(Locale.ROOT);
    return host.endsWith(".amazonaws.com") || host.endsWith(".amazonaws.com.cn");
  }

  private static URI parseEndpoint(String key, String text) {
    URI uri;
    try {
      uri = URI.create(text.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Option '"
              + key
              + "' is '"
              + text
              + "', not a URI; write for example http://127.0.0.1:9000 or https://s3.eu-west-1.amazonaws.com.",
          e);
    }
    if (uri.getScheme() == null
        || uri.getHost() == null
        || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
      throw new IllegalArgumentException(
          "Option '"
              + key
              + "' is '"
              + text
              + "'; write an http:// or https:// URI with a host, for example http://127.0.0.1:9000.");
    }
    return uri;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }

  /** Every option with secrets masked. */
  @Override
  public String toString() {
    return "S3Options{endpoint="
        + (endpoint == null ? "aws" : endpoint)
        + ", region="
        + region
        + ", accessKey="
        + (accessKey == null ? "default chain" : accessKey)
        + ", secretKey="
        + (secretKey == null ? "-" : "******")
        + ", sessionToken="
        + (sessionToken == null ? "-" : "******")
        + ", pathStyleAccess="
        + pathStyleAccess
        + ", conditionalWrites="
        + conditionalWrites
        + ", connectionTimeout="
        + Durations.format(connectionTimeout)
        + ", socketTimeout="
        + Durations.format(socketTimeout)
        + ", apiCallTimeout="
        + Durations.format(apiCallTimeout)
        + ", apiCallAttemptTimeout="
        + Durations.format(apiCallAttemptTimeout)
        + ", maxConnections="
        + maxConnections
        + ", maxAttempts="
        + maxAttempts
        + ", retryBaseDelay="
        + Durations.format(retryBaseDelay)
        + ", retryMaxDelay="
        + Durations.format(retryMaxDelay)
        + ", multipartThreshold="
        + multipartThreshold
        + ", multipartPartSize="
        + multipartPartSize
        + (assumedRole == null ? "" : ", assumedRole=" + assumedRole)
        + "}";
  }
}
