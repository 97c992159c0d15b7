package dev.lockstep.lock.zookeeper;

import static dev.lockstep.lock.zookeeper.ZooKeeperTesting.scaled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.ForwardingLockService;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real server-side session expiry of a lock holder: the next client gets the lock within the
 * session timeout, and the old holder is fenced, both as a lease and as a committer.
 */
class SessionExpiryTest {

  private static final String KEY = "db.expiring";
  private static TestingServer server;
  private static ExecutorService pool;

  @BeforeAll
  static void start() throws Exception {
    server = ZooKeeperTesting.startServer();
    pool = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stop() throws Exception {
    pool.shutdownNow();
    server.close();
  }

  @RepeatedTest(20)
  void anExpiredHolderIsFencedAndTheWaitingClientTakesOverWithinTheSessionTimeout()
      throws Exception {
    Map<String, String> options = ZooKeeperTesting.options(server.getConnectString());
    try (ZooKeeperLockService first = ZooKeeperTesting.ownProcessService(options);
        ZooKeeperLockService second = ZooKeeperTesting.ownProcessService(options)) {
      Lease old = first.acquire(KEY, scaled(Duration.ofSeconds(5))).orElseThrow();
      Future<Optional<Lease>> waiting =
          pool.submit(() -> second.acquire(KEY, scaled(Duration.ofSeconds(30))));
      awaitQueueLength(first, 2);

      long expiryStarted = System.nanoTime();
      ZooKeeperTesting.expireSession(server.getConnectString(), first.curator());
      Lease next =
          waiting
              .get(scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS)
              .orElseThrow();
      Duration takeover = Duration.ofNanos(System.nanoTime() - expiryStarted);

      assertThat(takeover).isLessThan(ZooKeeperTesting.SESSION_TIMEOUT);
      awaitNoticedLost(old);
      assertThat(old.isHeld()).isFalse();
      assertThat(old.timeLeft()).isEqualTo(Duration.ZERO);
      assertThatThrownBy(old::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining(KEY);
      assertThat(next.fencingToken()).isGreaterThan(old.fencingToken());

      try {
        old.close();
      } catch (IOException e) {
        // Disconnected while its session is replaced: the delete of its own node goes on in the
        // background, which must not touch the new holder either.
        assertThat(e).hasMessageContaining("background");
      }
      assertThat(
              first
                  .curator()
                  .blockUntilConnected(
                      (int) scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS))
          .isTrue();
      assertThat(first.curator().checkExists().forPath(((ZooKeeperLease) old).nodePath())).isNull();
      assertThat(next.isHeld()).as("the old holder's close leaves the new holder alone").isTrue();
      assertThat(second.curator().checkExists().forPath(((ZooKeeperLease) next).nodePath()))
          .isNotNull();
      next.ensureHeld();
      next.close();
    }
  }

  @RepeatedTest(20)
  void anExpiredHoldersCommitDoesNotLand(@TempDir java.nio.file.Path tableDir) throws Exception {
    Map<String, String> options =
        new HashMap<>(ZooKeeperTesting.options(server.getConnectString()));
    options.put(LockOptions.LOCK_ENABLED, "true");
    CommitOptions commitOptions = CommitOptions.from(options);
    Path snapshots = Path.of(tableDir.resolve("snapshot").toString());
    byte[] oldContent = "{\"commitId\":\"old-holder\"}".getBytes(StandardCharsets.UTF_8);
    byte[] newContent = "{\"commitId\":\"new-holder\"}".getBytes(StandardCharsets.UTF_8);

    try (ZooKeeperLockService first = ZooKeeperTesting.ownProcessService(options);
        ZooKeeperLockService second = ZooKeeperTesting.ownProcessService(options)) {
      RecordingLockService oldHolder = new RecordingLockService(first);
      BlindPutStore newStore = new BlindPutStore(new LocalFileIO(), null);
      SnapshotCommitter newCommitter =
          SnapshotCommitter.builder(newStore, snapshots, KEY)
              .options(commitOptions)
              .lockService(second)
              .build();
      AtomicLong takeoverNanos = new AtomicLong(-1);
      // The old holder pauses right after checking that snapshot-1 is absent. Meanwhile its session
      // is expired on the server and the other writer commits snapshot-1.
      BlindPutStore oldStore =
          new BlindPutStore(
              new LocalFileIO(),
              () -> {
                long expiryStarted = System.nanoTime();
                ZooKeeperTesting.expireSession(server.getConnectString(), first.curator());
                assertThat(newCommitter.commit(1, SnapshotContent.of(newContent)).outcome())
                    .isEqualTo(CommitOutcome.COMMITTED);
                takeoverNanos.set(newStore.firstExistsCheck.get() - expiryStarted);
                // The old holder resumes once its client has seen the session end (see
                // awaitNoticedLost).
                awaitNoticedLost(oldHolder.leases.get(0));
              });
      SnapshotCommitter oldCommitter =
          SnapshotCommitter.builder(oldStore, snapshots, KEY)
              .options(commitOptions)
              .lockService(oldHolder)
              .build();
      assertThat(oldCommitter.strategy()).isEqualTo("lock (plain write)");

      CommitOutcome outcome = null;
      try {
        outcome = oldCommitter.commit(1, SnapshotContent.of(oldContent)).outcome();
      } catch (IOException e) {
        // Failing is fine; landing is not.
      }

      assertThat(outcome)
          .as("the fenced holder learns that snapshot-1 is taken")
          .isEqualTo(CommitOutcome.CONFLICT);
      assertThat(oldStore.snapshotWrites.get()).as("snapshot writes by the fenced holder").isZero();
      assertThat(newCommitter.log().read(1)).as("snapshot-1").isEqualTo(newContent);
      assertThat(newCommitter.log().listIds()).containsExactly(1L);
      assertThat(Duration.ofNanos(takeoverNanos.get()))
          .as("takeover after expiry")
          .isPositive()
          .isLessThan(ZooKeeperTesting.SESSION_TIMEOUT);
      Lease fenced = oldHolder.leases.get(0);
      assertThatThrownBy(fenced::ensureHeld).isInstanceOf(LockLostException.class);
      oldCommitter.close();
      newCommitter.close();
    }
  }

  /**
   * Waits, bounded, until the old holder's client has noticed that its session is gone. A session
   * closed on the server by another handle is noticed only when the server drops the holder's
   * connection, which on a loaded machine can take a moment after the next client already holds the
   * lock: no lock service can tell a holder sooner. What the tests prove is that once noticed, the
   * lease is fenced for good and nothing is written under it.
   */
  private static void awaitNoticedLost(Lease lease) throws InterruptedException {
    long deadline = System.nanoTime() + scaled(Duration.ofSeconds(10)).toNanos();
    while (lease.isHeld()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("The old holder never noticed that its session ended");
      }
      Thread.sleep(5);
    }
  }

  private static void awaitQueueLength(ZooKeeperLockService service, int length) throws Exception {
    String keyPath = ZKPaths.makePath(service.options().basePath(), KEY);
    long deadline = System.nanoTime() + scaled(Duration.ofSeconds(10)).toNanos();
    while (service.curator().getChildren().forPath(keyPath).size() < length) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("The second client never queued for " + KEY);
      }
      Thread.sleep(5);
    }
  }

  /** The hook run when the store is paused. */
  @FunctionalInterface
  interface Pause {
    void run() throws Exception;
  }

  /**
   * An object store without conditional writes: a PUT replaces whatever is there, so only the lock
   * keeps two writers apart. Optionally pauses the writer once, right after its first existence
   * check of a snapshot, answering as the store did before the pause.
   */
  static final class BlindPutStore extends CapabilityHidingFileIO {
    private final Pause pauseAfterFirstCheck;
    final AtomicLong firstExistsCheck = new AtomicLong();
    final AtomicLong snapshotWrites = new AtomicLong();
    private boolean paused;

    BlindPutStore(FileIO delegate, Pause pauseAfterFirstCheck) {
      super(delegate);
      this.pauseAfterFirstCheck = pauseAfterFirstCheck;
    }

    @Override
    public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
      if (path.name().startsWith("snapshot-")) {
        snapshotWrites.incrementAndGet();
      }
      return super.newOutputStream(path, true);
    }

    @Override
    public boolean exists(Path path) throws IOException {
      boolean answer = super.exists(path);
      firstExistsCheck.compareAndSet(0, System.nanoTime());
      if (pauseAfterFirstCheck != null && !paused && path.name().startsWith("snapshot-")) {
        paused = true;
        try {
          pauseAfterFirstCheck.run();
        } catch (Exception e) {
          throw new AssertionError("The pause failed", e);
        }
      }
      return answer;
    }
  }

  /** Hands out the delegate's leases and remembers them. */
  static final class RecordingLockService extends ForwardingLockService {
    final List<Lease> leases = new CopyOnWriteArrayList<>();

    RecordingLockService(LockService delegate) {
      super(delegate);
    }

    @Override
    public Optional<Lease> acquire(String key, Duration timeout)
        throws IOException, InterruptedException {
      Optional<Lease> lease = super.acquire(key, timeout);
      lease.ifPresent(leases::add);
      return lease;
    }
  }
}
