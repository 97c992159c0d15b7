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
    S3Options parsed = S3Options.from(PaimonS3Options.toLockstep(Map.of(
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
    S3Options parsed = S3Options.from(PaimonS3Options.toLockstep(Map.of(
        "s3.endpoint", "https://s3.eu-west-1.amazonaws.com",
        "s3.path-style-access", "false",
        "s3.path.style.access", "true")));
    assertThat(parsed.pathStyleAccess()).isFalse();
    assertThat(parsed.accessKey()).isNull();
    assertThat(parsed.endpoint()).hasToString("https://s3.eu-west-1.amazonaws.com");
  }

  @Test
  void anAssumedRoleIsRefusedWithTheWayOut() {
    assertThatThrownBy(() -> PaimonS3Options.toLockstep(Map.of(
        "s3.assumed.role.arn", "arn:aws:iam::1:role/r")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("\n")
        .hasMessageContaining("default credential chain");
  }
}
