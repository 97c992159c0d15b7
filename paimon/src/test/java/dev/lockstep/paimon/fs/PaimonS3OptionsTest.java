package dev.lockstep.paimon.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.s3.S3Options;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Paimon's S3 keys as {@code paimon-s3} users write them, read by Lockstep's S3 store. */
class PaimonS3OptionsTest {

  @Test
  void paimonAndS3aSpellingsMapOntoLockstepsKeys() {
    S3Options parsed =
        S3Options.from(
            PaimonS3Options.toLockstep(
                Map.of(
                    "s3.endpoint", "minio.local:9000",
                    "s3.connection.ssl.enabled", "false",
                    "fs.s3a.access.key", "AK",
                    "s3a.secret.key", "SK",
                    "s3.path.style.access", "true",
                    "s3.endpoint.region", "eu-west-1",
                    "s3.attempts.maximum", "7",
                    "s3.connection.maximum", "33",
                    "s3.multipart.size", "16M")));
    assertThat(parsed.endpoint()).hasToString("http://minio.local:9000");
    assertThat(parsed.accessKey()).isEqualTo("AK");
    assertThat(parsed.secretKey()).isEqualTo("SK");
    assertThat(parsed.pathStyleAccess()).isTrue();
    assertThat(parsed.region()).isEqualTo("eu-west-1");
    assertThat(parsed.maxAttempts()).isEqualTo(7);
    assertThat(parsed.maxConnections()).isEqualTo(33);
    assertThat(parsed.multipartPartSize()).isEqualTo(16L << 20);
  }

  @Test
  void lockstepsOwnKeyWinsAndNoKeysMeansTheDefaultCredentialChain() {
    S3Options parsed =
        S3Options.from(
            PaimonS3Options.toLockstep(
                Map.of(
                    "s3.endpoint", "https://s3.eu-west-1.amazonaws.com",
                    "s3.path-style-access", "false",
                    "s3.path.style.access", "true")));
    assertThat(parsed.pathStyleAccess()).isFalse();
    assertThat(parsed.accessKey()).isNull();
    assertThat(parsed.endpoint()).hasToString("https://s3.eu-west-1.amazonaws.com");
  }

  @Test
  void hadoopOnlySettingsAreDroppedBeforeTheStoreSeesThemAndOtherNamespacesStay() {
    // A catalog moved from paimon-s3 keeps S3A tuning the Lockstep store does not read; the store
    // refuses unknown keys in its namespace, so the adapter removes them (and warns) first.
    Map<String, String> lockstep =
        PaimonS3Options.toLockstep(
            Map.of(
                "s3.endpoint", "http://127.0.0.1:9000",
                "s3.fast.upload", "true",
                "fs.s3a.buffer.dir", "/tmp/s3a",
                "s3.path.style.access", "true",
                "warehouse", "s3://bucket/wh",
                "lock.type", "lockstep-zookeeper"));
    assertThat(lockstep).doesNotContainKeys("s3.fast.upload", "s3.path.style.access");
    assertThat(lockstep)
        .containsEntry("s3.path-style-access", "true")
        .containsEntry("warehouse", "s3://bucket/wh")
        .containsEntry("lock.type", "lockstep-zookeeper");
    assertThat(S3Options.from(lockstep).pathStyleAccess()).isTrue();
  }

  @Test
  void s3aAssumedRoleSettingsBecomeLockstepsAndACredentialsProviderClassIsRefused() {
    Map<String, String> lockstep =
        PaimonS3Options.toLockstep(
            Map.of(
                "s3.assumed.role.arn", "arn:aws:iam::123456789012:role/r",
                "fs.s3a.assumed.role.session.name", "flink-writer",
                "s3.assumed.role.session.duration", "30m",
                "s3.assumed.role.sts.endpoint", "sts.eu-west-1.amazonaws.com",
                "s3.assumed.role.sts.endpoint.region", "eu-west-1",
                "s3.assumed.role.policy", "{}",
                "s3.assumed-role.external-id", "ext"));
    S3Options.AssumedRole role = S3Options.from(lockstep).assumedRole();
    assertThat(role.arn()).isEqualTo("arn:aws:iam::123456789012:role/r");
    assertThat(role.sessionName()).isEqualTo("flink-writer");
    assertThat(role.sessionDuration()).isEqualTo(java.time.Duration.ofMinutes(30));
    assertThat(role.stsEndpoint()).hasToString("https://sts.eu-west-1.amazonaws.com");
    assertThat(role.stsRegion()).isEqualTo("eu-west-1");
    assertThat(role.policy()).isEqualTo("{}");
    assertThat(role.externalId()).isEqualTo("ext");

    assertThatThrownBy(
            () ->
                PaimonS3Options.toLockstep(
                    Map.of("s3.assumed.role.credentials.provider", "com.example.Provider")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("\n")
        .hasMessageContaining("default credential chain");
  }
}
