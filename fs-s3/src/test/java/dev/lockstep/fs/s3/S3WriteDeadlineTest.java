package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsWriteDeadline;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Plain writes under a lock carry the lease deadline on the request itself: over a slow network the
 * SDK aborts the upload at the deadline, and the truncated upload never becomes an object later.
 */
class S3WriteDeadlineTest {

  /** Far larger than the socket buffers between writer and store, so an abort truncates it. */
  private static final int LARGE = 16 << 20;

  private static S3ProxyServer server;
  private static ThrottlingProxy slowNetwork;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    slowNetwork = new ThrottlingProxy(server.port(), 16 << 10);
  }

  @AfterAll
  static void stop() throws Exception {
    if (slowNetwork != null) {
      slowNetwork.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static FileIO openPlain() throws IOException {
    Map<String, String> options = S3ProxyServer.options(slowNetwork.endpoint());
    options.put(S3Options.CONDITIONAL_WRITES, "false");
    return dev.lockstep.fs.FileIODiscovery.open(server.freshRoot(), options);
  }

  private static byte[] large() {
    byte[] bytes = new byte[LARGE];
    new Random(7).nextBytes(bytes);
    return bytes;
  }

  private static boolean exists(Path path) {
    String key = path.pathPart().substring(1);
    try {
      server.admin().headObject(b -> b.bucket(S3ProxyServer.BUCKET).key(key));
      return true;
    } catch (software.amazon.awssdk.services.s3.model.NoSuchKeyException e) {
      return false;
    } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  @Test
  void aWriteThatOutlastsItsDeadlineIsAbortedAndNeverLands() throws Exception {
    Path root = server.freshRoot();
    Path target = root.child("slow-object");
    try (FileIO store = openPlain()) {
      assertThat(store)
          .isInstanceOf(SupportsWriteDeadline.class)
          .isNotInstanceOf(SupportsAtomicCreate.class);
      // 16 MiB at about 1.6 MB/s needs 10 s; the deadline is 3 s.
      assertThatThrownBy(
              () ->
                  ((SupportsWriteDeadline) store)
                      .writeWithin(target, large(), true, Duration.ofSeconds(3)))
          .isInstanceOf(UncertainWriteException.class);
    }
    assertThat(slowNetwork.awaitIdle(Duration.ofSeconds(60))).isTrue();
    assertThat(exists(target)).as("a truncated upload must not become an object").isFalse();
  }

  @Test
  void aLockedCommitBoundsItsPlainWriteByTheLeaseAndLeavesNoLateSnapshot() throws Exception {
    Path root = server.freshRoot();
    InJvmLockService lock = new InJvmLockService(Duration.ofSeconds(2));
    CommitOptions options =
        CommitOptions.from(
            Map.of(
                "lock.enabled",
                "true",
                "lock.type",
                "in-jvm",
                CommitOptions.COMMIT_LEASE_MARGIN,
                "500 ms",
                CommitOptions.COMMIT_WRITE_ATTEMPTS,
                "1"));
    try (FileIO store = openPlain();
        SnapshotCommitter committer =
            SnapshotCommitter.builder(store, root.child("snapshot"), "db.t")
                .options(options)
                .lockService(lock)
                .build()) {
      assertThat(committer.strategy()).isEqualTo("lock (plain write)");
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(large())))
          .isInstanceOf(dev.lockstep.commit.CommitStateUnknownException.class);
    } finally {
      lock.close();
    }
    assertThat(slowNetwork.awaitIdle(Duration.ofSeconds(60))).isTrue();
    assertThat(exists(root.child("snapshot/snapshot-1")))
        .as("the write abandoned at the lease deadline must not land after it")
        .isFalse();
  }
}
