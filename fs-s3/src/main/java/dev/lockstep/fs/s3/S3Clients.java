package dev.lockstep.fs.s3;

import java.io.Closeable;
import java.io.IOException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.StsClientBuilder;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider;

/**
 * The two S3 clients of one store, sharing one HTTP connection pool:
 *
 * <ul>
 *   <li>{@link #retrying()}: the SDK's standard retries, for idempotent calls (GET, HEAD, LIST,
 *       DELETE, plain PUT, part uploads).
 *   <li>{@link #singleAttempt()}: no SDK retries, for conditional writes. An SDK retry of {@code
 *       If-None-Match: *} answers 412 when the first attempt landed but its answer was lost, which
 *       would look like someone else's win; {@link ConditionalWriter} retries itself and knows when
 *       an earlier attempt may have landed.
 * </ul>
 *
 * <p>With {@value S3Options#ASSUMED_ROLE_ARN} both sign with the role's temporary credentials: an
 * {@link StsAssumeRoleCredentialsProvider} on an STS client of its own (same connection pool),
 * which asks STS with the store's keys (or the default chain) and renews the credentials before
 * they expire. {@link #checkCredentials} asks STS once when the store opens, so that a role that
 * cannot be assumed fails there, in one line naming the option.
 */
final class S3Clients implements Closeable {

  private final SdkHttpClient http;
  private final S3Client retrying;
  private final S3Client singleAttempt;

  /** The assumed role's STS client and credentials, or null. */
  private final StsClient sts;

  private final StsAssumeRoleCredentialsProvider assumedRole;
  private final S3Options options;

  S3Clients(S3Options options) {
    this.options = options;
    this.http =
        ApacheHttpClient.builder()
            .connectionTimeout(options.connectionTimeout())
            .socketTimeout(options.socketTimeout())
            .maxConnections(options.maxConnections())
            .build();
    StsClient stsClient = null;
    StsAssumeRoleCredentialsProvider roleCredentials = null;
    try {
      AwsCredentialsProvider credentials = credentials(options);
      Region region = region(options);
      if (options.assumedRole() != null) {
        stsClient = sts(options.assumedRole(), credentials, region);
        roleCredentials = assumeRole(stsClient, options.assumedRole());
        credentials = roleCredentials;
      }
      RetryStrategy standard =
          AwsRetryStrategy.standardRetryStrategy().toBuilder()
              .maxAttempts(options.maxAttempts())
              .backoffStrategy(
                  BackoffStrategy.exponentialDelay(
                      options.retryBaseDelay(), options.retryMaxDelay()))
              .build();
      this.retrying = builder(options, credentials, region, standard).build();
      this.singleAttempt =
          builder(options, credentials, region, AwsRetryStrategy.doNotRetry()).build();
      this.sts = stsClient;
      this.assumedRole = roleCredentials;
    } catch (RuntimeException e) {
      if (roleCredentials != null) {
        roleCredentials.close();
      }
      if (stsClient != null) {
        stsClient.close();
      }
      http.close();
      throw e;
    }
  }

  private StsClient sts(
      S3Options.AssumedRole role, AwsCredentialsProvider credentials, Region region) {
    StsClientBuilder builder =
        StsClient.builder()
            .httpClient(http)
            .credentialsProvider(credentials)
            .region(role.stsRegion() != null ? Region.of(role.stsRegion()) : region)
            .overrideConfiguration(
                ClientOverrideConfiguration.builder()
                    .apiCallTimeout(options.apiCallTimeout())
                    .apiCallAttemptTimeout(options.apiCallAttemptTimeout())
                    .build());
    if (role.stsEndpoint() != null) {
      builder.endpointOverride(role.stsEndpoint());
    }
    return builder.build();
  }

  private static StsAssumeRoleCredentialsProvider assumeRole(
      StsClient sts, S3Options.AssumedRole role) {
    return StsAssumeRoleCredentialsProvider.builder()
        .stsClient(sts)
        .refreshRequest(
            r -> {
              r.roleArn(role.arn())
                  .roleSessionName(role.sessionName())
                  .durationSeconds((int) role.sessionDuration().toSeconds());
              if (role.externalId() != null) {
                r.externalId(role.externalId());
              }
              if (role.policy() != null) {
                r.policy(role.policy());
              }
            })
        .build();
  }

  /**
   * With an assumed role, asks STS for its credentials now.
   *
   * @throws IOException in one line naming {@value S3Options#ASSUMED_ROLE_ARN} and what to check,
   *     when STS refuses or cannot be reached
   */
  void checkCredentials() throws IOException {
    if (assumedRole == null) {
      return;
    }
    try {
      assumedRole.resolveCredentials();
    } catch (SdkException e) {
      String why =
          e instanceof AwsServiceException && ((AwsServiceException) e).awsErrorDetails() != null
              ? ((AwsServiceException) e).awsErrorDetails().errorCode()
                  + ": "
                  + ((AwsServiceException) e).awsErrorDetails().errorMessage()
              : String.valueOf(e.getMessage());
      throw new IOException(
          "Cannot assume the role '"
              + options.assumedRole().arn()
              + "' of option '"
              + S3Options.ASSUMED_ROLE_ARN
              + "' ("
              + why.replaceAll("\\s+", " ")
              + "); check the ARN, that the credentials that ask STS ('"
              + S3Options.ACCESS_KEY
              + "' / '"
              + S3Options.SECRET_KEY
              + "', or the default chain) may call sts:AssumeRole on"
              + " it, '"
              + S3Options.ASSUMED_ROLE_EXTERNAL_ID
              + "' if its trust policy asks for one, and"
              + " '"
              + S3Options.ASSUMED_ROLE_STS_ENDPOINT
              + "'.",
          e);
    }
  }

  private S3ClientBuilder builder(
      S3Options options,
      AwsCredentialsProvider credentials,
      Region region,
      RetryStrategy retryStrategy) {
    S3ClientBuilder builder =
        S3Client.builder()
            .httpClient(http)
            .credentialsProvider(credentials)
            .region(region)
            .serviceConfiguration(
                S3Configuration.builder().pathStyleAccessEnabled(options.pathStyleAccess()).build())
            .overrideConfiguration(
                ClientOverrideConfiguration.builder()
                    .retryStrategy(retryStrategy)
                    .apiCallTimeout(options.apiCallTimeout())
                    .apiCallAttemptTimeout(options.apiCallAttemptTimeout())
                    .build());
    if (options.endpoint() != null) {
      builder.endpointOverride(options.endpoint());
    }
    return builder;
  }

  private static AwsCredentialsProvider credentials(S3Options options) {
    if (options.accessKey() == null) {
      return DefaultCredentialsProvider.create();
    }
    if (options.sessionToken() != null) {
      return StaticCredentialsProvider.create(
          AwsSessionCredentials.create(
              options.accessKey(), options.secretKey(), options.sessionToken()));
    }
    return StaticCredentialsProvider.create(
        AwsBasicCredentials.create(options.accessKey(), options.secretKey()));
  }

  private static Region region(S3Options options) {
    if (options.region() != null) {
      return Region.of(options.region());
    }
    if (!options.isAwsEndpoint()) {
      // S3-compatible stores accept any signing region; asking the SDK's chain could wait for the
      // EC2 metadata service on machines that are not in AWS.
      return Region.of(S3Options.REGION_FALLBACK);
    }
    try {
      return new DefaultAwsRegionProviderChain().getRegion();
    } catch (SdkClientException noRegion) {
      return Region.of(S3Options.REGION_FALLBACK);
    }
  }

  S3Client retrying() {
    return retrying;
  }

  S3Client singleAttempt() {
    return singleAttempt;
  }

  @Override
  public void close() {
    retrying.close();
    singleAttempt.close();
    if (assumedRole != null) {
      assumedRole.close();
      sts.close();
    }
    http.close();
  }
}
