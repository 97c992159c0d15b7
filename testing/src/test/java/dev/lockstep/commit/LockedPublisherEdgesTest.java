package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.BlindPutStore;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsWriteDeadline;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import dev.lockstep.testing.ForwardingLease;
import dev.lockstep.testing.ForwardingLockService;
import dev.lockstep.testing.HeldWriteFileIO;
import dev.lockstep.testing.InJvmLockService;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edges of {@code commit.strategy=lock} that mutation testing (scripts/mutation) found
 * unchecked: a lease whose release fails, contention seen inside {@link SnapshotCommitter#holding},
 * the interrupt given back after a write that landed, and the deadline a plain write carries on a
 * store that {@link SupportsWriteDeadline}. Real in-JVM lock, real local store.
 */
class LockedPublisherEdgesTest {

  private static final String KEY = "db.t";
  private static final Map<String, String> LOCKED =
      Map.of("lock.enabled", "true", "lock.type", "in-jvm");

  @TempDir java.nio.file.Path dir;
  private final InJvmLockService lock = new InJvmLockService();

  @AfterEach
  void closeLock() {
    lock.close();
  }

  private SnapshotCommitter committer(dev.lockstep.fs.FileIO store, LockService service) {
    return SnapshotCommitter.builder(store, Path.of(dir.toString()), KEY)
        .options(CommitOptions.from(LOCKED))
        .lockService(service)
        .build();
  }

  private String snapshot(long id) throws IOException {
    return Files.readString(dir.resolve("snapshot-" + id));
  }

  /** The in-JVM lock, except that releasing a lease fails (the lease is still released). */
  private final class FailingRelease extends ForwardingLockService {
    final List<String> failedReleases = new CopyOnWriteArrayList<>();

    FailingRelease() {
      this(lock);
    }

    FailingRelease(LockService service) {
      super(ForwardingLockService.unclosable(service));
    }

    @Override
    public Optional<Lease> acquire(String key, Duration timeout)
        throws IOException, InterruptedException {
      return super.acquire(key, timeout)
          .map(
              lease ->
                  new ForwardingLease(lease) {
                    @Override
                    public void close() throws IOException {
                      delegate().close();
                      failedReleases.add(key);
                      throw new IOException("release refused by the lock service");
                    }
                  });
    }
  }

  @Test
  void aFailedReleaseIsNotAFailedCommit() throws Exception {
    FailingRelease service = new FailingRelease();
    BlindPutStore store = new BlindPutStore(new LocalFileIO());
    try (SnapshotCommitter committer = committer(store, service)) {
      CommitAttempt first = committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8)));
      assertThat(first.outcome()).isEqualTo(CommitOutcome.COMMITTED);
      assertThat(snapshot(1)).isEqualTo("one");
      // A conflict (snapshot-1 is taken) under a lease whose release fails is still a conflict.
      CommitAttempt second = committer.commit(1, SnapshotContent.of("two".getBytes(UTF_8)));
      assertThat(second.outcome()).isEqualTo(CommitOutcome.CONFLICT);
      assertThat(snapshot(1)).isEqualTo("one");
      // Inside holding() too: the work's result comes back, the release failure is only logged.
      long committed =
          committer.holding(
              () -> {
                assertThat(
                        committer.commit(2, SnapshotContent.of("three".getBytes(UTF_8))).outcome())
                    .isEqualTo(CommitOutcome.COMMITTED);
                return 2L;
              });
      assertThat(committed).isEqualTo(2);
    }
    assertThat(service.failedReleases).hasSize(3);
    assertThat(lock.holder(KEY)).isEmpty();
  }

  @Test
  void aCommitInsideAContendedHoldingReportsTheContention() throws Exception {
    BlindPutStore store = new BlindPutStore(new LocalFileIO());
    Lease other = lock.acquire(KEY, Duration.ZERO).orElseThrow();
    try (SnapshotCommitter committer = committer(store, lock)) {
      CompletableFuture<CommitAttempt> attempt =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return committer.holding(
                      () -> committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))));
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              });
      // The committer is waiting for the lease the other holder has.
      TimeUnit.MILLISECONDS.sleep(200);
      assertThat(attempt).isNotDone();
      other.close();
      CommitAttempt done = attempt.get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
      assertThat(done.outcome()).isEqualTo(CommitOutcome.COMMITTED);
      assertThat(done.lockContended()).isTrue();

      // Uncontended: not reported.
      CommitAttempt free =
          committer.holding(() -> committer.commit(2, SnapshotContent.of("two".getBytes(UTF_8))));
      assertThat(free.committed()).isTrue();
      assertThat(free.lockContended()).isFalse();
    }
  }

  @Test
  void anInterruptWhileTheWriteIsInFlightIsGivenBackAfterTheCommit() throws Exception {
    HeldWriteFileIO store =
        new HeldWriteFileIO(new LocalFileIO(), path -> path.name().equals("snapshot-1"));
    CompletableFuture<CommitAttempt> attempt = new CompletableFuture<>();
    CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
    Thread committing =
        new Thread(
            () -> {
              try (SnapshotCommitter committer = committer(store, lock)) {
                attempt.complete(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))));
                interruptedAfter.complete(Thread.currentThread().isInterrupted());
              } catch (Throwable t) {
                attempt.completeExceptionally(t);
              }
            });
    committing.start();
    store.awaitInFlight(TestTiming.seconds(10));
    committing.interrupt();
    TimeUnit.MILLISECONDS.sleep(50);
    store.land();
    CommitAttempt done = attempt.get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
    committing.join(TestTiming.seconds(30).toMillis());
    assertThat(done.outcome()).isEqualTo(CommitOutcome.COMMITTED);
    assertThat(interruptedAfter.get()).as("the interrupt is given back").isTrue();
    assertThat(snapshot(1)).isEqualTo("one");
    assertThat(store.cancelled()).as("the write was not cut short").isFalse();
  }

  @Test
  void anInterruptInsideHoldingIsGivenBackAfterThePublish() throws Exception {
    HeldWriteFileIO store =
        new HeldWriteFileIO(new LocalFileIO(), path -> path.name().equals("snapshot-1"));
    CompletableFuture<CommitAttempt> attempt = new CompletableFuture<>();
    CompletableFuture<Boolean> interruptedInside = new CompletableFuture<>();
    Thread committing =
        new Thread(
            () -> {
              try (SnapshotCommitter committer = committer(store, lock)) {
                attempt.complete(
                    committer.holding(
                        () -> {
                          CommitAttempt a =
                              committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8)));
                          // Still under the lease: the interrupt is back already.
                          interruptedInside.complete(Thread.currentThread().isInterrupted());
                          return a;
                        }));
              } catch (Throwable t) {
                attempt.completeExceptionally(t);
              }
            });
    committing.start();
    store.awaitInFlight(TestTiming.seconds(10));
    committing.interrupt();
    TimeUnit.MILLISECONDS.sleep(50);
    store.land();
    CommitAttempt done = attempt.get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
    committing.join(TestTiming.seconds(30).toMillis());
    assertThat(done.outcome()).isEqualTo(CommitOutcome.COMMITTED);
    assertThat(interruptedInside.get()).as("the interrupt is given back").isTrue();
    assertThat(snapshot(1)).isEqualTo("one");
  }

  @Test
  void aLeaseTooShortToWriteIsNotPublishedAndCarriesTheFailedRelease() throws Exception {
    // A lease of 2 s, a margin of 10 s: every attempt finds too little lease left and writes
    // nothing;
    // each release fails too, which is kept on the attempt's failure.
    InJvmLockService shortLeases = new InJvmLockService(Duration.ofSeconds(2));
    FailingRelease service = new FailingRelease(shortLeases);
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(
                new BlindPutStore(new LocalFileIO()), Path.of(dir.toString()), KEY)
            .options(
                CommitOptions.from(
                    Map.of(
                        "lock.enabled",
                        "true",
                        "lock.type",
                        "in-jvm",
                        "commit.lease-margin",
                        "10 s")))
            .lockService(service)
            .build()) {
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))))
          .isInstanceOf(SnapshotNotPublishedException.class)
          .cause()
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("commit.lease-margin")
          .satisfies(
              e ->
                  assertThat(e.getSuppressed())
                      .extracting(Throwable::getMessage)
                      .containsExactly("release refused by the lock service"));
    } finally {
      shortLeases.close();
    }
    assertThat(dir.resolve("snapshot-1")).doesNotExist();
  }

  @Test
  void closingTheCommitterEndsItsWriterThread() throws Exception {
    List<Thread> writers = new CopyOnWriteArrayList<>();
    BlindPutStore store =
        new BlindPutStore(new LocalFileIO()) {
          @Override
          public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
            if (path.name().equals("snapshot-1")) {
              writers.add(Thread.currentThread());
            }
            return super.newOutputStream(path, overwrite);
          }
        };
    SnapshotCommitter committer = committer(store, lock);
    assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).committed()).isTrue();
    assertThat(writers).hasSize(1);
    assertThat(writers.get(0).isAlive()).as("idle in the pool until closed").isTrue();
    committer.close();
    writers.get(0).join(TestTiming.seconds(10).toMillis());
    assertThat(writers.get(0).isAlive()).isFalse();
  }

  /** A store without primitives whose writes carry a deadline; records the deadlines given. */
  private static final class DeadlineStore extends BlindPutStore implements SupportsWriteDeadline {
    final List<Duration> deadlines = new CopyOnWriteArrayList<>();

    DeadlineStore() {
      super(new LocalFileIO());
    }

    @Override
    public void writeWithin(Path path, byte[] content, boolean overwrite, Duration timeout)
        throws IOException {
      deadlines.add(timeout);
      try (OutputStream out = newOutputStream(path, overwrite)) {
        out.write(content);
      }
    }
  }

  @Test
  void aPlainWriteCarriesTheLeaseTimeLeftMinusTheMarginAsItsDeadline() throws Exception {
    DeadlineStore store = new DeadlineStore();
    Duration margin = Duration.ofSeconds(5);
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(store, Path.of(dir.toString()), KEY)
            .options(
                CommitOptions.from(
                    Map.of(
                        "lock.enabled",
                        "true",
                        "lock.type",
                        "in-jvm",
                        "commit.lease-margin",
                        margin.toMillis() + " ms")))
            .lockService(lock)
            .build()) {
      assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).committed())
          .isTrue();
    }
    assertThat(snapshot(1)).isEqualTo("one");
    assertThat(store.deadlines).hasSize(1);
    Duration deadline = store.deadlines.get(0);
    // The lease lasts a minute (InJvmLockService's default); the write gets what is left of it
    // minus the margin: positive, at most 55 s.
    assertThat(deadline)
        .isPositive()
        .isLessThanOrEqualTo(InJvmLockService.DEFAULT_LEASE_TTL.minus(margin))
        .isGreaterThan(Duration.ofSeconds(30));
  }

  @Test
  void theWriterThreadsDoNotKeepTheJvmAlive() throws Exception {
    CountDownLatch writing = new CountDownLatch(1);
    boolean[] daemon = {false};
    BlindPutStore store =
        new BlindPutStore(new LocalFileIO()) {
          @Override
          public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
            if (path.name().equals("snapshot-1")) {
              daemon[0] = Thread.currentThread().isDaemon();
              writing.countDown();
            }
            return super.newOutputStream(path, overwrite);
          }
        };
    try (SnapshotCommitter committer = committer(store, lock)) {
      assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).committed())
          .isTrue();
    }
    assertThat(writing.getCount()).isZero();
    assertThat(daemon[0]).isTrue();
  }
}
