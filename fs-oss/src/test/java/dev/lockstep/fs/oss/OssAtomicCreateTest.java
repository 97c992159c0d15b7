package dev.lockstep.fs.oss;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.aliyun.oss.ClientBuilderConfiguration;
import com.aliyun.oss.OSS;
import com.aliyun.oss.OSSClientBuilder;
import com.aliyun.oss.OSSException;
import com.aliyun.oss.model.ObjectMetadata;
import com.aliyun.oss.model.PutObjectRequest;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.oss.testing.OssTestServer;
import dev.lockstep.fs.oss.testing.OssTestServer.Fault;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.FileAlreadyExistsException;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Atomic create through {@code x-oss-forbid-overwrite: true}: conflicts, lost answers and server
 * errors on PutObject and CompleteMultipartUpload, decided as the OssPublisher javadoc says.
 */
class OssAtomicCreateTest {

  private static final String KEY = "t/snapshot-1";
  private static final Path FILE = Path.of("oss://" + OssTargets.BUCKET + "/" + KEY);

  private OssTestServer server;
  private OssFileIO store;

  @BeforeEach
  void start() throws IOException {
    server = OssTestServer.start().createBucket(OssTargets.BUCKET);
    store = (OssFileIO) new OssFileIOLoader().load(FILE, OssTargets.options(server));
  }

  @AfterEach
  void stop() {
    store.close();
    server.close();
  }

  @Test
  void anExistingObjectIsAConflictAndKeepsItsBytes() throws IOException {
    store.createAtomically(FILE, new byte[] {1});
    assertThatThrownBy(() -> store.createAtomically(FILE, new byte[] {2}))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThatThrownBy(() -> store.createAtomically(FILE, OssFileIOTest.random(1_500_000, 1)))
        .as("multipart create over an existing object")
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(server.object(OssTargets.BUCKET, KEY)).containsExactly(1);
    assertThat(server.uploadsInProgress(OssTargets.BUCKET)).isZero();
  }

  @Test
  void aLostAnswerOnOurPutIsOurSuccessNotAConflict() throws IOException {
    server.injectFault(Fault.LOSE_ANSWER_AFTER_APPLYING, "PutObject", KEY::equals, 1);
    store.createAtomically(FILE, new byte[] {7, 7});
    assertThat(server.requestCount("PutObject"))
        .as("our retry answered 409 for our own write")
        .isEqualTo(2);
    assertThat(server.object(OssTargets.BUCKET, KEY)).containsExactly(7, 7);
  }

  @Test
  void theSdksOwnRetryWouldReportOurOwnWriteAsFileAlreadyExists() {
    ClientBuilderConfiguration conf = new ClientBuilderConfiguration();
    conf.setMaxErrorRetry(3);
    OSS sdk =
        new OSSClientBuilder()
            .build(server.endpoint(), server.accessKeyId(), server.accessKeySecret(), conf);
    try {
      server.injectFault(Fault.LOSE_ANSWER_AFTER_APPLYING, "PutObject", KEY::equals, 1);
      ObjectMetadata meta = new ObjectMetadata();
      meta.setHeader("x-oss-forbid-overwrite", "true");
      PutObjectRequest put =
          new PutObjectRequest(
              OssTargets.BUCKET, KEY, new ByteArrayInputStream(new byte[] {5}), meta);
      assertThatThrownBy(() -> sdk.putObject(put))
          .isInstanceOf(OSSException.class)
          .extracting(e -> ((OSSException) e).getErrorCode())
          .isEqualTo("FileAlreadyExists");
      assertThat(server.object(OssTargets.BUCKET, KEY))
          .as("yet the object is ours")
          .containsExactly(5);
    } finally {
      sdk.shutdown();
    }
  }

  @Test
  void aServerErrorWhileAnotherWriterWonIsAConflict() throws IOException {
    store.createAtomically(FILE, new byte[] {1});
    server.injectFault(Fault.INTERNAL_ERROR_BEFORE_APPLYING, "PutObject", KEY::equals, 1);
    assertThatThrownBy(() -> store.createAtomically(FILE, new byte[] {2}))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(server.object(OssTargets.BUCKET, KEY)).containsExactly(1);
  }

  @Test
  void serverErrorsOnEveryAttemptLeaveTheOutcomeUncertain() {
    server.injectFault(
        Fault.INTERNAL_ERROR_BEFORE_APPLYING,
        "PutObject",
        KEY::equals,
        OssOptions.ATTEMPTS_DEFAULT);
    assertThatThrownBy(() -> store.createAtomically(FILE, new byte[] {3}))
        .isInstanceOf(UncertainWriteException.class)
        .satisfies(e -> assertThat(((UncertainWriteException) e).path()).isEqualTo(FILE));
    assertThat(server.requestCount("PutObject")).isEqualTo(OssOptions.ATTEMPTS_DEFAULT);
  }

  @Test
  void aLostAnswerOnOurCompleteMultipartUploadIsOurSuccess() throws IOException {
    byte[] content = OssFileIOTest.random(1_500_000, 2); // above the 1 MB threshold
    server.injectFault(Fault.LOSE_ANSWER_AFTER_APPLYING, "CompleteMultipartUpload", KEY::equals, 1);
    store.createAtomically(FILE, content);
    assertThat(server.requestCount("CompleteMultipartUpload")).isEqualTo(2);
    assertThat(server.object(OssTargets.BUCKET, KEY)).isEqualTo(content);
  }

  @Test
  void aServerErrorAfterOurCompleteLandedIsOurSuccessAndLaterCreatesConflict() throws IOException {
    byte[] content = OssFileIOTest.random(1_500_000, 3);
    server.injectFault(
        Fault.INTERNAL_ERROR_AFTER_APPLYING, "CompleteMultipartUpload", KEY::equals, 1);
    store.createAtomically(FILE, content);
    assertThat(server.object(OssTargets.BUCKET, KEY))
        .as("a 5xx after landing, resolved as ours")
        .isEqualTo(content);
    assertThatThrownBy(() -> store.createAtomically(FILE, OssFileIOTest.random(1_500_000, 4)))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(server.object(OssTargets.BUCKET, KEY)).isEqualTo(content);
    assertThat(server.uploadsInProgress(OssTargets.BUCKET)).isZero();
  }

  @Test
  void aRefusedConnectionIsAPlainFailureNeverUncertain() throws IOException {
    int closedPort;
    try (ServerSocket probe = new ServerSocket(0)) {
      closedPort = probe.getLocalPort();
    }
    Map<String, String> options = OssTargets.options(server);
    options.put(OssOptions.ENDPOINT, "http://127.0.0.1:" + closedPort);
    try (OssFileIO unreachable = (OssFileIO) new OssFileIOLoader().load(FILE, options)) {
      assertThatThrownBy(() -> unreachable.createAtomically(FILE, new byte[] {1}))
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(UncertainWriteException.class)
          .isNotInstanceOf(FileAlreadyExistsException.class)
          .hasMessageContaining("127.0.0.1:" + closedPort);
    }
  }
}
