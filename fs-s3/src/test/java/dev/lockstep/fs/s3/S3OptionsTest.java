package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Parsing and validating {@code s3.*} options; bad input names the key and the fix. */
class S3OptionsTest {

  @Test
  void defaultsWhenNothingIsSet() {
    S3Options options = S3Options.from(Map.of());
    assertThat(options.endpoint()).isNull();
    assertThat(options.accessKey()).as("default credential chain").isNull();
    assertThat(options.conditionalWrites()).isEqualTo(S3Options.ConditionalWrites.AUTO);
    assertThat(options.isAwsEndpoint()).isTrue();
    assertThat(options.multipartThreshold()).isEqualTo(32L << 20);
    assertThat(options.multipartPartSize()).isEqualTo(8L << 20);
    assertThat(options.maxAttempts()).isEqualTo(5);
  }

  @Test
  void valuesWithUnitsAreRead() {
    S3Options options =
        S3Options.from(
            Map.of(
                S3Options.ENDPOINT, "https://s3.eu-west-1.amazonaws.com",
                S3Options.MULTIPART_THRESHOLD, "64 MiB",
                S3Options.MULTIPART_PART_SIZE, "16m",
                S3Options.API_CALL_ATTEMPT_TIMEOUT, "30 s",
                S3Options.CONDITIONAL_WRITES, "FALSE",
                S3Options.RETRY_MAX_ATTEMPTS, "3"));
    assertThat(options.isAwsEndpoint()).isTrue();
    assertThat(options.multipartThreshold()).isEqualTo(64L << 20);
    assertThat(options.multipartPartSize()).isEqualTo(16L << 20);
    assertThat(options.apiCallAttemptTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.conditionalWrites()).isEqualTo(S3Options.ConditionalWrites.FALSE);
    assertThat(S3Options.from(Map.of(S3Options.ENDPOINT, "http://127.0.0.1:9000")).isAwsEndpoint())
        .isFalse();
  }

  @Test
  void badValuesNameTheKeyAndTheFix() {
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.ACCESS_KEY, "AKIA")))
        .hasMessageContaining(S3Options.SECRET_KEY)
        .hasMessageContaining("default AWS credential");
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.CONDITIONAL_WRITES, "maybe")))
        .hasMessageContaining(S3Options.CONDITIONAL_WRITES)
        .hasMessageContaining("[auto, true, false]");
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.MULTIPART_PART_SIZE, "1 MiB")))
        .hasMessageContaining(S3Options.MULTIPART_PART_SIZE)
        .hasMessageContaining("5 MiB");
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.MULTIPART_THRESHOLD, "6 MiB")))
        .hasMessageContaining(S3Options.MULTIPART_THRESHOLD);
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.MULTIPART_PART_SIZE, "lots")))
        .hasMessageContaining("8 MiB");
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.ENDPOINT, "127.0.0.1:9000")))
        .hasMessageContaining(S3Options.ENDPOINT)
        .hasMessageContaining("http://");
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.SOCKET_TIMEOUT, "0 s")))
        .hasMessageContaining(S3Options.SOCKET_TIMEOUT);
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.RETRY_MAX_ATTEMPTS, "0")))
        .hasMessageContaining(S3Options.RETRY_MAX_ATTEMPTS);
  }

  @Test
  void secretsAreNeverPrinted() {
    Map<String, String> raw =
        new HashMap<>(
            Map.of(
                S3Options.ACCESS_KEY,
                "AKIAEXAMPLE",
                S3Options.SECRET_KEY,
                "wJalrXUtnFEMI-secret",
                S3Options.SESSION_TOKEN,
                "token-secret"));
    S3Options options = S3Options.from(raw);
    assertThat(options.toString())
        .contains("AKIAEXAMPLE")
        .doesNotContain("wJalrXUtnFEMI-secret")
        .doesNotContain("token-secret");
    raw.put(S3Options.CONDITIONAL_WRITES, "true");
    raw.put(S3Options.ENDPOINT, "http://127.0.0.1:1");
    try (var store = new S3FileIOLoader().load(Path.of("s3://b/x"), raw)) {
      assertThat(store.toString()).doesNotContain("wJalrXUtnFEMI-secret");
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void bothSchemesAreServedAndPathsNameTheirBucket() {
    assertThat(FileIODiscovery.loaders(getClass().getClassLoader()))
        .hasEntrySatisfying("s3", l -> assertThat(l).isInstanceOf(S3FileIOLoader.class))
        .hasEntrySatisfying("s3a", l -> assertThat(l).isInstanceOf(S3FileIOLoader.class));
    assertThat(S3Location.of(Path.of("s3a://bucket/a/b c/%41")))
        .isEqualTo(new S3Location("bucket", "a/b c/%41"));
    assertThatThrownBy(() -> S3Location.of(Path.of("s3:///a")))
        .hasMessageContaining("s3://bucket/path");
  }

  @Test
  void anUnreachableEndpointFailsAutoAsUnreachable() {
    // Issue 25: a store that is down is unreachable, not a question of conditional writes.
    Map<String, String> raw = S3ProxyServer.options(java.net.URI.create("http://127.0.0.1:1"));
    raw.put(S3Options.RETRY_MAX_ATTEMPTS, "1");
    assertThatThrownBy(() -> new S3FileIOLoader().load(Path.of("s3://b/x"), raw))
        .hasMessageStartingWith("Cannot reach the S3 endpoint http://127.0.0.1:1 (")
        .hasMessageContaining("Check '" + S3Options.ENDPOINT + "'")
        .hasMessageNotContaining(S3Options.CONDITIONAL_WRITES);
  }
}
