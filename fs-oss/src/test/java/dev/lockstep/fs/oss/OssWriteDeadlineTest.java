package dev.lockstep.fs.oss;

import static dev.lockstep.testing.TestTiming.scaled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsWriteDeadline;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.oss.testing.OssTestServer;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link SupportsWriteDeadline} on OSS, over real sockets to the OSS test server: the request
 * carries the deadline, so over a slow network the SDK aborts an upload still being sent when the
 * deadline hits, and the truncated upload never becomes an object, not even after the network
 * speeds up again. No timing is asserted, only what lands.
 */
class OssWriteDeadlineTest {

  /**
   * Far larger than the socket buffers between the SDK and the server, so an abort truncates it.
   */
  private static final int LARGE = 16 << 20;

  /** 1 MiB/s: {@link #LARGE} needs about 16 s to arrive. */
  private static final long SLOW = 1 << 20;

  private static final AtomicInteger ROOTS = new AtomicInteger();

  private static OssTestServer server;

  @BeforeAll
  static void startServer() throws IOException {
    server = OssTestServer.start().createBucket(OssTargets.BUCKET);
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void fullSpeed() {
    server.throttleRequests(0);
  }

  private static Path freshRoot() {
    return Path.of("oss://" + OssTargets.BUCKET + "/deadline-" + ROOTS.incrementAndGet());
  }

  private static FileIO open(Path root) throws IOException {
    return FileIODiscovery.open(root, OssTargets.options(server));
  }

  private static byte[] object(Path path) {
    return server.object(OssTargets.BUCKET, path.pathPart().substring(1));
  }

  private static byte[] large() {
    byte[] bytes = new byte[LARGE];
    new Random(7).nextBytes(bytes);
    return bytes;
  }

  /** Lets the server read what is left at full speed; true once it has no request in progress. */
  private static boolean serverDoneWithEverything() throws InterruptedException {
    server.throttleRequests(0);
    return server.awaitIdle(scaled(Duration.ofSeconds(60)));
  }

  @Test
  void anUploadThatOutlastsItsDeadlineIsAbortedAndNeverLands() throws Exception {
    Path target = freshRoot().child("slow-object");
    try (FileIO store = open(target)) {
      assertThat(store).isInstanceOf(SupportsWriteDeadline.class);
      server.throttleRequests(SLOW);
      assertThatThrownBy(
              () ->
                  ((SupportsWriteDeadline) store)
                      .writeWithin(target, large(), false, Duration.ofSeconds(2)))
          .isInstanceOf(UncertainWriteException.class)
          .hasMessageContaining("deadline");
    }
    // Were the upload still going, full speed would now complete it: it must not.
    assertThat(serverDoneWithEverything()).as("the server finished the aborted request").isTrue();
    assertThat(object(target)).as("a truncated upload must never become an object").isNull();
    assertThat(server.keys(OssTargets.BUCKET)).noneMatch(k -> k.endsWith("slow-object"));
  }

  @Test
  void aWriteWithinItsDeadlineLandsAndKeepsForbidOverwrite() throws Exception {
    Path target = freshRoot().child("object");
    byte[] first = "first".getBytes(StandardCharsets.UTF_8);
    byte[] second = "second".getBytes(StandardCharsets.UTF_8);
    try (FileIO store = open(target)) {
      SupportsWriteDeadline deadlined = (SupportsWriteDeadline) store;
      deadlined.writeWithin(target, first, false, scaled(Duration.ofSeconds(30)));
      assertThat(object(target)).isEqualTo(first);

      int before = server.requestCount("PutObject");
      assertThatThrownBy(
              () -> deadlined.writeWithin(target, second, false, scaled(Duration.ofSeconds(30))))
          .isInstanceOf(FileAlreadyExistsException.class)
          .hasMessageContaining("nothing was written");
      assertThat(server.requestCount("PutObject"))
          .as("overwrite=false is decided by OSS (x-oss-forbid-overwrite), not by a HEAD first")
          .isEqualTo(before + 1);
      assertThat(object(target)).isEqualTo(first);

      deadlined.writeWithin(target, second, true, scaled(Duration.ofSeconds(30)));
      assertThat(object(target)).isEqualTo(second);
    }
  }

  @Test
  void aDeadlineThatPassedBeforeSendingSendsNothing() throws Exception {
    Path target = freshRoot().child("never");
    try (FileIO store = open(target)) {
      int before = server.requestsReceived();
      for (Duration passed :
          new Duration[] {Duration.ZERO, Duration.ofMillis(-5), Duration.ofNanos(500_000)}) {
        assertThatThrownBy(
                () ->
                    ((SupportsWriteDeadline) store)
                        .writeWithin(
                            target, "late".getBytes(StandardCharsets.UTF_8), false, passed))
            .as("deadline %s", passed)
            .isInstanceOf(IOException.class)
            .isNotInstanceOf(UncertainWriteException.class)
            .isNotInstanceOf(FileAlreadyExistsException.class)
            .hasMessageContaining("nothing was written");
      }
      assertThat(server.requestsReceived()).as("requests sent").isEqualTo(before);
    }
    assertThat(object(target)).isNull();
  }

  /**
   * The commit protocol's plain write under a lock (the store seen without atomic create, as a
   * store without conditional writes would be) goes through {@code writeWithin}: the upload is cut
   * at the lease deadline, and no snapshot appears after the lease is gone.
   */
  @Test
  void aLockedPlainWriteIsBoundedByTheLeaseAndLeavesNoLateSnapshot() throws Exception {
    Path root = freshRoot();
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
    try (FileIO store = new WriteDeadlineOnly((SupportsWriteDeadline) open(root));
        SnapshotCommitter committer =
            SnapshotCommitter.builder(store, root.child("snapshot"), "db.t")
                .options(options)
                .lockService(lock)
                .build()) {
      assertThat(committer.strategy()).isEqualTo("lock (plain write)");
      server.throttleRequests(SLOW);
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(large())))
          .isInstanceOf(CommitStateUnknownException.class);
    } finally {
      lock.close();
    }
    assertThat(serverDoneWithEverything()).as("the server finished the aborted request").isTrue();
    assertThat(object(root.child("snapshot/snapshot-1")))
        .as("the write abandoned at the lease deadline must not land after it")
        .isNull();
  }

  /** An OSS store seen with {@link SupportsWriteDeadline} only: no atomic create. */
  private static final class WriteDeadlineOnly extends CapabilityHidingFileIO
      implements SupportsWriteDeadline {
    private final SupportsWriteDeadline store;

    WriteDeadlineOnly(SupportsWriteDeadline store) {
      super(store);
      this.store = store;
      assertThat(this).isNotInstanceOf(SupportsAtomicCreate.class);
    }

    @Override
    public void writeWithin(Path path, byte[] content, boolean overwrite, Duration timeout)
        throws IOException {
      store.writeWithin(path, content, overwrite, timeout);
    }
  }
}
