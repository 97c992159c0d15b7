package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.testing.CommitLoop;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Conditional writes whose answers get lost, through {@link LostAnswerProxy} in front of s3proxy: a
 * write that landed is ours (never a conflict, never committed twice), a write that did not land
 * while another writer won is a conflict, and a write that cannot be decided is uncertain.
 */
class S3LostAnswerTest {

  private static S3ProxyServer server;
  private static LostAnswerProxy proxy;
  private SupportsAtomicCreate store;
  private Path root;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    proxy = new LostAnswerProxy(server.port());
  }

  @AfterAll
  static void stop() throws Exception {
    proxy.close();
    server.close();
  }

  @BeforeEach
  void open() throws Exception {
    root = server.freshRoot();
    Map<String, String> options = new HashMap<>(S3ProxyServer.options(proxy.endpoint()));
    options.put(S3Options.RETRY_BASE_DELAY, "5 ms");
    options.put(S3Options.MULTIPART_THRESHOLD, "5 MiB");
    options.put(S3Options.MULTIPART_PART_SIZE, "5 MiB");
    store = (SupportsAtomicCreate) dev.lockstep.fs.FileIODiscovery.open(root, options);
  }

  @AfterEach
  void close() throws Exception {
    proxy.arm(LostAnswerProxy.Fault.DROP_RESPONSE, head -> false, 0, null);
    store.close();
  }

  @Test
  void aLostAnswerToALandedSnapshotResolvesToCommittedExactlyOnce() throws Exception {
    Path snapshots = root.child("snapshot");
    int before = proxy.triggered();
    proxy.arm(
        LostAnswerProxy.Fault.DROP_RESPONSE,
        LostAnswerProxy.conditionalWriteTo("/snapshot-1"),
        1,
        null);
    byte[] ours = CommitLoop.snapshot("ours", "u1", 1);
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(store, snapshots, "db.t")
            .options(Map.of("commit.strategy", "auto"))
            .open()) {
      assertThat(committer.commit(1, SnapshotContent.of(ours)).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
      assertThat(proxy.triggered() - before).as("the answer was really dropped").isEqualTo(1);
      byte[] theirs = CommitLoop.snapshot("theirs", "u2", 1);
      assertThat(committer.commit(1, SnapshotContent.of(theirs)).outcome())
          .isEqualTo(CommitOutcome.CONFLICT);
      assertThat(committer.commit(2, SnapshotContent.of(theirs)).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
      assertThat(committer.log().listIds()).containsExactly(1L, 2L);
      assertThat(committer.log().read(1)).isEqualTo(ours);
    }
  }

  @Test
  void aFourTwelveAfterOurOwnLandedAttemptIsOursNotAConflict() throws Exception {
    Path file = root.child("snapshot-7");
    int before = proxy.triggered();
    proxy.arm(
        LostAnswerProxy.Fault.DROP_RESPONSE,
        LostAnswerProxy.conditionalWriteTo("/snapshot-7"),
        1,
        null);
    store.createAtomically(file, bytes("mine"));
    assertThat(proxy.triggered() - before).isEqualTo(1);
    assertThat(read(file)).isEqualTo(bytes("mine"));
  }

  @Test
  void theSdksOwnRetryWouldHaveReportedOurWinAsSomeoneElses() {
    proxy.arm(
        LostAnswerProxy.Fault.DROP_RESPONSE, LostAnswerProxy.conditionalWriteTo("/naive"), 1, null);
    S3Options options = S3Options.from(S3ProxyServer.options(proxy.endpoint()));
    try (S3Clients clients = new S3Clients(options)) {
      S3Client withSdkRetries = clients.retrying();
      S3Location location = S3Location.of(root.child("naive"));
      assertThatThrownBy(
              () ->
                  withSdkRetries.putObject(
                      b -> b.bucket(location.bucket()).key(location.key()).ifNoneMatch("*"),
                      RequestBody.fromString("mine")))
          .isInstanceOfSatisfying(
              S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    }
    assertThat(read(root.child("naive"))).as("yet the object is ours").isEqualTo(bytes("mine"));
  }

  @Test
  void everyAnswerLostIsStillDecidedByReadingBack() throws Exception {
    Path file = root.child("snapshot-8");
    int before = proxy.triggered();
    proxy.arm(
        LostAnswerProxy.Fault.DROP_RESPONSE,
        LostAnswerProxy.conditionalWriteTo("/snapshot-8"),
        1000,
        null);
    store.createAtomically(file, bytes("mine"));
    assertThat(proxy.triggered() - before).isEqualTo(S3Options.RETRY_MAX_ATTEMPTS_DEFAULT);
    assertThat(read(file)).isEqualTo(bytes("mine"));
  }

  @Test
  void aLostRequestWhileAnotherWriterWinsIsAConflict() throws Exception {
    Path file = root.child("snapshot-9");
    S3Location location = S3Location.of(file);
    proxy.arm(
        LostAnswerProxy.Fault.DROP_REQUEST,
        LostAnswerProxy.conditionalWriteTo("/snapshot-9"),
        1,
        () ->
            server
                .admin()
                .putObject(
                    b -> b.bucket(location.bucket()).key(location.key()).ifNoneMatch("*"),
                    RequestBody.fromString("theirs")));
    assertThatThrownBy(() -> store.createAtomically(file, bytes("mine")))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(file)).isEqualTo(bytes("theirs"));
  }

  @Test
  void aLostRequestAloneIsRetriedAndLandsOnce() throws Exception {
    Path file = root.child("snapshot-10");
    proxy.arm(
        LostAnswerProxy.Fault.DROP_REQUEST,
        LostAnswerProxy.conditionalWriteTo("/snapshot-10"),
        1,
        null);
    store.createAtomically(file, bytes("mine"));
    assertThat(read(file)).isEqualTo(bytes("mine"));
  }

  @Test
  void aConditionalRequestConflictIsRetriedAndLandsOnce() throws Exception {
    Path file = root.child("snapshot-13");
    int before = proxy.triggered();
    proxy.arm(
        LostAnswerProxy.Fault.ANSWER_CONDITIONAL_CONFLICT,
        LostAnswerProxy.conditionalWriteTo("/snapshot-13"),
        2,
        null);
    store.createAtomically(file, bytes("mine"));
    assertThat(proxy.triggered() - before).isEqualTo(2);
    assertThat(read(file)).isEqualTo(bytes("mine"));
  }

  @Test
  void aWriteThatNeverGetsThroughIsUncertainAndTheCommitUnknown() throws Exception {
    Path file = root.child("snapshot-11");
    proxy.arm(
        LostAnswerProxy.Fault.DROP_REQUEST,
        LostAnswerProxy.conditionalWriteTo("/snapshot-11"),
        1000,
        null);
    assertThatThrownBy(() -> store.createAtomically(file, bytes("mine")))
        .isInstanceOf(UncertainWriteException.class);
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(store, root, "db.t")
            .options(Map.of("commit.strategy", "atomic-create"))
            .open()) {
      assertThatThrownBy(() -> committer.commit(11, SnapshotContent.of(bytes("mine"))))
          .isInstanceOf(CommitStateUnknownException.class);
    }
    assertThat(store.exists(file)).isFalse();
  }

  @Test
  void aLostAnswerToACompletedMultipartCreateIsOurs() throws Exception {
    Path file = root.child("snapshot-12");
    byte[] big = S3FileIOTest.randomBytes(6 << 20);
    int before = proxy.triggered();
    proxy.arm(
        LostAnswerProxy.Fault.DROP_RESPONSE,
        head ->
            head.startsWith("POST ")
                && head.contains("uploadId=")
                && LostAnswerProxy.conditionalWriteTo("/snapshot-12").test(head),
        1,
        null);
    store.createAtomically(file, big);
    assertThat(proxy.triggered() - before).isEqualTo(1);
    assertThat(read(file)).isEqualTo(big);
    assertThatThrownBy(() -> store.createAtomically(file, S3FileIOTest.randomBytes(6 << 20)))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(file)).isEqualTo(big);
    assertThat(server.admin().listMultipartUploads(b -> b.bucket(S3ProxyServer.BUCKET)).uploads())
        .as("the losing upload was aborted")
        .isEmpty();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] read(Path file) {
    S3Location location = S3Location.of(file);
    return server
        .admin()
        .getObjectAsBytes(b -> b.bucket(location.bucket()).key(location.key()))
        .asByteArray();
  }
}
