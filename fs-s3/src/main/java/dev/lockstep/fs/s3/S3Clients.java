package dev.lockstep.fs.s3;

import java.io.Closeable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * The two S3 clients of one store, sharing one HTTP connection pool:
 *
 * <ul>
 *   <li>{@link #retrying()}: the SDK's standard retries, for idempotent calls (GET, HEAD, LIST,
 *       DELETE, plain PUT, part uploads).
 *   <li>{@link #singleAttempt()}: no SDK retries, for conditional writes. An SDK retry of {@code
 *       If-None-Match: *} answers 412 when the first attempt landed but its answer was lost, which
 *       would look like someone else's win; {@link ConditionalWriter} retries itself and knows when an
 *       earlier attempt may have landed.
 * </ul>
 */
final class S3Clients implements Closeable {

  private final SdkHttpClient http;
  private final S3Client retrying;
  private final S3Client singleAttempt;

  S3Clients(S3Options options) {
    this.http = ApacheHttpClient.builder()
        .connectionTimeout(options.connectionTimeout())
        .socketTimeout(options.socketTimeout())
        .maxConnections(options.maxConnections())
        .build();
    try {
      AwsCredentialsProvider credentials = credentials(options);
      Region region = region(options);
      RetryStrategy standard = AwsRetryStrategy.standardRetryStrategy().toBuilder()
          .maxAttempts(options.maxAttempts())
          .backoffStrategy(BackoffStrategy.exponentialDelay(options.retryBaseDelay(),
              options.retryMaxDelay()))
          .build();
      this.retrying = builder(options, credentials, region, standard).build();
      this.singleAttempt = builder(options, credentials, region, AwsRetryStrategy.doNotRetry())
          .build();
    } catch (RuntimeException e) {
      http.close();
      throw e;
    }
  }

  private S3ClientBuilder builder(S3Options options, AwsCredentialsProvider credentials,
      Region region, RetryStrategy retryStrategy) {
    S3ClientBuilder builder = S3Client.builder()
        .httpClient(http)
        .credentialsProvider(credentials)
        .region(region)
        .serviceConfiguration(S3Configuration.builder()
            .pathStyleAccessEnabled(options.pathStyleAccess())
            .build())
        .overrideConfiguration(ClientOverrideConfiguration.builder()
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
      return StaticCredentialsProvider.create(AwsSessionCredentials.create(options.accessKey(),
          options.secretKey(), options.sessionToken()));
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
    http.close();
  }
}
