package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.SocketException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Which failures of a write may have landed: the line between "retry freely" and "read back". */
class S3ErrorsTest {

  @Test
  void failuresAfterSendingMayHaveLanded() {
    assertThat(
            S3Errors.mayHaveLanded(
                SdkClientException.create("reset", new SocketException("Connection reset"))))
        .isTrue();
    assertThat(S3Errors.mayHaveLanded(ApiCallAttemptTimeoutException.create(1000))).isTrue();
    assertThat(S3Errors.mayHaveLanded(service(500, "InternalError"))).isTrue();
    assertThat(S3Errors.mayHaveLanded(service(503, "ServiceUnavailable"))).isTrue();
  }

  @Test
  void failuresBeforeProcessingDidNotLand() {
    assertThat(
            S3Errors.mayHaveLanded(
                SdkClientException.create("refused", new ConnectException("Connection refused"))))
        .isFalse();
    assertThat(S3Errors.mayHaveLanded(SdkClientException.create("Unable to load credentials")))
        .isFalse();
    assertThat(S3Errors.mayHaveLanded(service(503, "SlowDown"))).isFalse();
    assertThat(S3Errors.mayHaveLanded(service(403, "AccessDenied"))).isFalse();
    assertThat(S3Errors.mayHaveLanded(service(409, "ConditionalRequestConflict"))).isFalse();
    assertThat(S3Errors.isConditionalConflict(service(409, "ConditionalRequestConflict"))).isTrue();
    assertThat(S3Errors.isPreconditionFailed(service(412, "PreconditionFailed"))).isTrue();
  }

  private static S3Exception service(int status, String code) {
    return (S3Exception)
        S3Exception.builder()
            .statusCode(status)
            .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).build())
            .build();
  }
}
