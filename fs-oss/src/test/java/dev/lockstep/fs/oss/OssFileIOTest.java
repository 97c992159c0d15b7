package dev.lockstep.fs.oss;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.oss.testing.OssTestServer;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** OssFileIO's store behaviour through the real SDK against the OSS test server. */
class OssFileIOTest {

  private static final Path ROOT = Path.of("oss://" + OssTargets.BUCKET + "/io");

  private OssTestServer server;
  private FileIO store;

  @BeforeEach
  void start() throws IOException {
    server = OssTestServer.start().createBucket(OssTargets.BUCKET);
    store = FileIODiscovery.open(ROOT, OssTargets.options(server));
  }

  @AfterEach
  void stop() throws IOException {
    store.close();
    server.close();
  }

  @Test
  void discoveryServesTheOssSchemeWithOssFileIO() {
    assertThat(store).isInstanceOf(OssFileIO.class);
  }

  @Test
  void rangedReadsSeekAndPositionedReadsReturnTheRightBytes() throws IOException {
    byte[] content = random(700_000, 1);
    Path file = ROOT.child("ranged");
    write(file, content, false);
    try (SeekableInputStream in = store.newInputStream(file)) {
      byte[] head = new byte[10];
      assertThat(in.read(head)).isEqualTo(10);
      assertThat(head).isEqualTo(slice(content, 0, 10));
      in.seek(650_000);
      byte[] far = in.readNBytes(100);
      assertThat(far).isEqualTo(slice(content, 650_000, 100));
      assertThat(in.position()).isEqualTo(650_100);
      in.seek(650_150); // a short forward seek
      assertThat((byte) in.read()).isEqualTo(content[650_150]);
      byte[] middle = new byte[5000];
      in.readFully(300_000, middle, 0, middle.length);
      assertThat(middle).isEqualTo(slice(content, 300_000, 5000));
      in.seek(content.length - 3);
      assertThat(in.readAllBytes()).isEqualTo(slice(content, content.length - 3, 3));
      assertThat(in.read()).isEqualTo(-1);
      assertThatThrownBy(() -> in.readFully(content.length - 1, new byte[2], 0, 2))
          .isInstanceOf(EOFException.class);
    }
    Path empty = ROOT.child("empty");
    write(empty, new byte[0], false);
    try (SeekableInputStream in = store.newInputStream(empty)) {
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void aMultipartWriteIsInvisibleUntilCloseAndReadsBackWhole() throws IOException {
    byte[] content = random(3 * 1024 * 1024 + 17, 2); // above the 1 MB threshold: multipart
    Path file = ROOT.child("big");
    try (OutputStream out = store.newOutputStream(file, false)) {
      for (int at = 0; at < content.length; at += 100_003) {
        out.write(content, at, Math.min(100_003, content.length - at));
      }
      assertThat(server.uploadsInProgress(OssTargets.BUCKET)).isEqualTo(1);
      assertThat(store.exists(file)).as("visible before close").isFalse();
    }
    assertThat(server.requestCount("UploadPart")).isGreaterThanOrEqualTo(12);
    assertThat(server.uploadsInProgress(OssTargets.BUCKET)).isZero();
    assertThat(server.object(OssTargets.BUCKET, "io/big")).isEqualTo(content);
    assertThat(store.getStatus(file).length()).isEqualTo(content.length);
  }

  @Test
  void aLostAnswerOnAnOverwritingCompleteMultipartUploadIsOurSuccess() throws IOException {
    Path file = ROOT.child("overwritten");
    write(file, new byte[] {1}, false);
    byte[] content = random(1_300_000, 5);
    server.injectFault(
        OssTestServer.Fault.LOSE_ANSWER_AFTER_APPLYING,
        "CompleteMultipartUpload",
        "io/overwritten"::equals,
        1);
    write(file, content, true); // the retry answers NoSuchUpload; the write id says it was ours
    assertThat(server.requestCount("CompleteMultipartUpload")).isEqualTo(2);
    assertThat(server.object(OssTargets.BUCKET, "io/overwritten")).isEqualTo(content);
  }

  @Test
  void listingPagesThroughFilesAndDirectoriesAndRecursiveDeleteBatches() throws IOException {
    Map<String, String> options = OssTargets.options(server);
    options.put(OssOptions.LIST_PAGE_SIZE, "2");
    try (FileIO paged = new OssFileIOLoader().load(ROOT, options)) {
      Path dir = ROOT.child("tree");
      for (String name : List.of("a", "b", "c", "sub/x", "sub/y", "sub/deeper/z", "other/q")) {
        write(dir.child(name), new byte[] {1, 2, 3}, false);
      }
      List<String> names = new ArrayList<>();
      for (FileStatus status : paged.list(dir)) {
        names.add(status.path().name() + (status.directory() ? "/" : ":" + status.length()));
        assertThat(status.path().parent()).isEqualTo(dir);
      }
      assertThat(names).containsExactlyInAnyOrder("a:3", "b:3", "c:3", "sub/", "other/");
      assertThat(paged.getStatus(dir.child("sub")).directory()).isTrue();
      assertThat(paged.getStatus(dir.child("a")).directory()).isFalse();
      assertThatThrownBy(() -> paged.delete(dir.child("sub"), false))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("not empty");
      assertThat(paged.delete(dir.child("sub"), true)).isTrue();
      assertThat(paged.exists(dir.child("sub/deeper/z"))).isFalse();
      assertThat(paged.delete(dir, true)).isTrue();
      assertThat(server.keys(OssTargets.BUCKET)).isEmpty();
      assertThat(server.requestCount("DeleteMultipleObjects")).isGreaterThanOrEqualTo(3);
      assertThat(paged.delete(dir, true)).isFalse();
    }
  }

  @Test
  void missingFilesRaiseFileNotFoundAndAReplacedObjectFailsAnOpenRead() throws IOException {
    assertThatThrownBy(() -> store.newInputStream(ROOT.child("none")))
        .isInstanceOf(FileNotFoundException.class);
    Path file = ROOT.child("replaced");
    write(file, random(200_000, 3), true);
    try (SeekableInputStream in = store.newInputStream(file)) {
      write(file, random(200_000, 4), true);
      in.seek(150_000); // far enough for a new ranged GetObject, which carries If-Match
      assertThatThrownBy(in::read)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("replaced while it was read");
    }
  }

  @Test
  void wrongCredentialsNameTheEndpointAndKeyIdButNeverTheSecret() throws IOException {
    Map<String, String> options = OssTargets.options(server);
    options.put(OssOptions.ACCESS_KEY_SECRET, "wrong-secret-4711");
    try (FileIO wrong = new OssFileIOLoader().load(ROOT, options)) {
      assertThatThrownBy(() -> wrong.exists(ROOT.child("x")))
          .isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining(server.endpoint())
          .hasMessageContaining("'" + server.accessKeyId() + "'")
          .hasMessageContaining("SignatureDoesNotMatch")
          .hasMessageContaining(OssOptions.ACCESS_KEY_SECRET)
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .doesNotContain("wrong-secret-4711")
                      .doesNotContain(server.accessKeySecret()));
      assertThatThrownBy(() -> ((OssFileIO) wrong).createAtomically(ROOT.child("y"), new byte[1]))
          .isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining(server.endpoint());
      assertThat(wrong.toString()).doesNotContain("wrong-secret-4711");
      assertThat(((OssFileIO) wrong).options().toString()).doesNotContain("wrong-secret-4711");
    }
    options.put(OssOptions.ACCESS_KEY_ID, "LTAI-unknown");
    try (FileIO unknown = new OssFileIOLoader().load(ROOT, options)) {
      assertThatThrownBy(() -> unknown.list(ROOT))
          .isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining("InvalidAccessKeyId")
          .hasMessageContaining("'LTAI-unknown'")
          .hasMessageContaining(server.endpoint());
    }
    assertThat(server.keys(OssTargets.BUCKET)).isEmpty();
  }

  @Test
  void stsCredentialsSendTheirSecurityToken() throws IOException {
    server.addTemporaryCredentials("STS.temporary-id", "sts-secret", "sts-token-123");
    Map<String, String> options = OssTargets.options(server);
    options.put(OssOptions.ACCESS_KEY_ID, "STS.temporary-id");
    options.put(OssOptions.ACCESS_KEY_SECRET, "sts-secret");
    options.put(OssOptions.SECURITY_TOKEN, "sts-token-123");
    try (OssFileIO sts = (OssFileIO) new OssFileIOLoader().load(ROOT, options)) {
      sts.createAtomically(ROOT.child("by-sts"), new byte[] {4});
      assertThat(sts.options().toString())
          .doesNotContain("sts-token-123")
          .doesNotContain("sts-secret");
    }
    options.remove(OssOptions.SECURITY_TOKEN);
    try (FileIO noToken = new OssFileIOLoader().load(ROOT, options)) {
      assertThatThrownBy(() -> noToken.exists(ROOT.child("by-sts")))
          .isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining("STS.temporary-id")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("sts-secret"));
    }
    assertThat(server.object(OssTargets.BUCKET, "io/by-sts")).containsExactly(4);
  }

  @Test
  void missingOrInvalidOptionsAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> new OssFileIOLoader().load(ROOT, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(OssOptions.ENDPOINT);
    Map<String, String> options = OssTargets.options(server);
    options.put(OssOptions.PART_SIZE, "50 KB");
    assertThatThrownBy(() -> new OssFileIOLoader().load(ROOT, options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(OssOptions.PART_SIZE)
        .hasMessageContaining("100 KB");
    assertThatThrownBy(
            () ->
                new OssFileIOLoader().load(Path.of("oss:///no-bucket"), OssTargets.options(server)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("oss://bucket/key");
  }

  @Test
  void aMissingBucketIsNamedWithTheEndpoint() {
    Path elsewhere = Path.of("oss://no-such-bucket/x");
    assertThatThrownBy(() -> store.getStatus(elsewhere))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining("bucket")
        .hasMessageContaining(server.endpoint());
  }

  private void write(Path file, byte[] content, boolean overwrite) throws IOException {
    try (OutputStream out = store.newOutputStream(file, overwrite)) {
      out.write(content);
    }
  }

  static byte[] random(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static byte[] slice(byte[] bytes, int from, int length) {
    byte[] out = new byte[length];
    System.arraycopy(bytes, from, out, 0, length);
    return out;
  }
}
