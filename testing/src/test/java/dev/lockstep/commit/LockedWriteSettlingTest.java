package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
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
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code commit.strategy=lock} settles a write that outlasts its budget (LockedPublisher steps
 * 5 and 6), and the interrupt it gives back, found unchecked by mutation testing
 * (scripts/mutation): a write whose thread starts only after the budget, a write that never settles
 * under a lease that keeps renewing itself, a write that lands while it is being settled, a
 * primitive interrupted before writing, and a release that fails with an unchecked exception. Real
 * in-JVM lock, real local store; the publisher is driven directly, as the committer drives it.
 */
class LockedWriteSettlingTest {

  private static final String KEY = "db.t";

  @TempDir java.nio.file.Path dir;
  private final InJvmLockService lock = new InJvmLockService();
  private final List<LockedPublisher> publishers = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    for (LockedPublisher publisher : publishers) {
      publisher.shutdown();
    }
    for (Thread thread : threads) {
      thread.interrupt();
      thread.join(TestTiming.seconds(10).toMillis());
    }
    lock.close();
  }

  private static CommitOptions options(String... keyValues) {
    Map<String, String> map = new HashMap<>(Map.of("lock.enabled", "true", "lock.type", "in-jvm"));
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return CommitOptions.from(map);
  }

  private LockedPublisher publisher(
      FileIO store, SnapshotPublisher primitive, LockService service, CommitOptions options) {
    LockedPublisher publisher = new LockedPublisher(store, primitive, service, KEY, options, null);
    publishers.add(publisher);
    return publisher;
  }

  private Path target() {
    return Path.of(dir.toString()).child("snapshot-1");
  }

  /** A publish running on its own thread, and its failure (empty: it returned). */
  private record Running(Thread thread, CompletableFuture<Optional<Throwable>> failure) {
    Optional<Throwable> await() throws Exception {
      return failure.get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private Running publishOnThread(
      LockedPublisher publisher, CompletableFuture<Boolean> interruptedAfter) {
    CompletableFuture<Optional<Throwable>> failure = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              Optional<Throwable> outcome = Optional.empty();
              try {
                publisher.publish(target(), "one".getBytes(UTF_8));
              } catch (Throwable t) {
                outcome = Optional.of(t);
              }
              interruptedAfter.complete(Thread.currentThread().isInterrupted());
              failure.complete(outcome);
            },
            "committer");
    threads.add(thread);
    thread.start();
    return new Running(thread, failure);
  }

  @Test
  void aWriteWhoseThreadStartsOnlyAfterItsBudgetRanOutWritesNothingAndSaysSo() throws Exception {
    // Leases of 1.5 s and a margin of 0.5 s: the write's budget is about a second. Its thread is
    // made at once but starts only when the test lets it, after the publish has given up: a
    // machine too busy to run it in time. The store's atomic create is the primitive, so that a
    // write taken for done is not read back.
    InJvmLockService shortLeases = new InJvmLockService(Duration.ofMillis(1500));
    CountDownLatch mayStart = new CountDownLatch(1);
    List<Thread> late = new CopyOnWriteArrayList<>();
    ThreadFactory startingLate =
        runnable -> {
          Thread thread =
              new Thread(
                  () -> {
                    awaitUninterruptibly(mayStart);
                    runnable.run();
                  },
                  "late-write");
          thread.setDaemon(true);
          late.add(thread);
          return thread;
        };
    LocalFileIO store = new LocalFileIO();
    LockedPublisher publisher =
        new LockedPublisher(
            store,
            new AtomicCreatePublisher(store),
            shortLeases,
            KEY,
            options("commit.lease-margin", "500 ms"),
            null,
            startingLate);
    try {
      assertThatThrownBy(() -> publisher.publish(target(), "one".getBytes(UTF_8)))
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("did not start within the lease budget")
          .hasMessageContaining("nothing was written");
      assertThat(shortLeases.holder(KEY)).as("the lease is released").isEmpty();
    } finally {
      mayStart.countDown();
      publisher.shutdown();
      for (Thread thread : late) {
        thread.join(TestTiming.seconds(10).toMillis());
      }
      shortLeases.close();
    }
    assertThat(late).hasSize(1);
    assertThat(late.get(0).isAlive()).isFalse();
    assertThat(dir.resolve("snapshot-1")).as("the late thread wrote nothing").doesNotExist();
  }

  /** A lease kept alive by a heartbeat: the time it has left never shrinks. */
  private final class RenewingLeases extends ForwardingLockService {
    private final Duration timeLeft;

    RenewingLeases(Duration timeLeft) {
      super(ForwardingLockService.unclosable(lock));
      this.timeLeft = timeLeft;
    }

    @Override
    public Optional<Lease> acquire(String key, Duration timeout)
        throws IOException, InterruptedException {
      return super.acquire(key, timeout)
          .map(
              lease ->
                  new ForwardingLease(lease) {
                    @Override
                    public Duration timeLeft() {
                      return timeLeft;
                    }
                  });
    }
  }

  @Test
  void aWriteThatNeverSettlesIsUncertainOnceTheLeaseTimeItHadIsSpentThoughTheLeaseRenews()
      throws Exception {
    // Budget: 1 s left minus a 0.5 s margin (scaled). The write hangs until the test lets it land;
    // once it is over its budget, the publisher waits for it at most the time the lease had left
    // then, however often the lease renews meanwhile, and gives the lock up with the outcome
    // unknown.
    HeldWriteFileIO store =
        new HeldWriteFileIO(new LocalFileIO(), path -> path.name().equals("snapshot-1"));
    LockedPublisher publisher =
        publisher(
            store,
            null,
            new RenewingLeases(TestTiming.millis(1000)),
            options("commit.lease-margin", TestTiming.millis(500).toMillis() + " ms"));
    Running running = publishOnThread(publisher, new CompletableFuture<>());
    try {
      assertThat(running.await())
          .hasValueSatisfying(
              failure ->
                  assertThat(failure)
                      .isInstanceOf(UncertainWriteException.class)
                      .hasMessageContaining("had not settled when the lease ran out"));
      assertThat(store.cancelled()).as("the write was cancelled").isTrue();
      assertThat(lock.holder(KEY)).as("the lock is given up").isEmpty();
    } finally {
      store.land();
    }
  }

  @Test
  void aWriteThatLandsWhileBeingSettledIsPublishedAndAnInterruptMeanwhileIsGivenBack()
      throws Exception {
    // Leases of 6 s and a margin of 5 s: the write is over its budget after about a second, is
    // cancelled, and lands (the request was on the wire) while the publisher waits for it to
    // settle, with about five seconds of the lease left. The committer is interrupted meanwhile.
    InJvmLockService leases = new InJvmLockService(TestTiming.seconds(6));
    HeldWriteFileIO store =
        new HeldWriteFileIO(new LocalFileIO(), path -> path.name().equals("snapshot-1"));
    LockedPublisher publisher =
        publisher(
            store,
            null,
            leases,
            options("commit.lease-margin", TestTiming.seconds(5).toMillis() + " ms"));
    CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
    Running running = publishOnThread(publisher, interruptedAfter);
    try {
      store.awaitCancelled(TestTiming.seconds(20));
      running.thread().interrupt();
      store.land();
      assertThat(running.await()).as("published: the write's own outcome stands").isEmpty();
      assertThat(interruptedAfter.get()).as("the interrupt is given back").isTrue();
      assertThat(Files.readString(dir.resolve("snapshot-1"))).isEqualTo("one");
      assertThat(leases.holder(KEY)).isEmpty();
    } finally {
      store.land();
      leases.close();
    }
  }

  /** A primitive that fails the way the test says, having written nothing. */
  private static SnapshotPublisher failing(Exception failure) {
    return new SnapshotPublisher() {
      @Override
      public String describe() {
        return "failing";
      }

      @Override
      public void publish(Path target, byte[] content) throws IOException, InterruptedException {
        if (failure instanceof InterruptedException interrupted) {
          throw interrupted;
        }
        throw (RuntimeException) failure;
      }
    };
  }

  @Test
  void aPrimitiveInterruptedBeforeWritingMakesThePublishAnInterrupt() throws Exception {
    // SnapshotPublisher's contract: InterruptedException only while nothing is written yet.
    LockedPublisher publisher =
        publisher(
            new LocalFileIO(),
            failing(new InterruptedException("waiting before the write")),
            lock,
            options());
    assertThatThrownBy(() -> publisher.publish(target(), "one".getBytes(UTF_8)))
        .isInstanceOf(InterruptedException.class)
        .hasMessage("waiting before the write");
    assertThat(lock.holder(KEY)).isEmpty();
    assertThat(dir.resolve("snapshot-1")).doesNotExist();
  }

  @Test
  void aPrimitiveFailingUncheckedIsAFailedWriteNamingTheTarget() throws Exception {
    LockedPublisher publisher =
        publisher(
            new LocalFileIO(),
            failing(new IllegalStateException("client closed")),
            lock,
            options());
    assertThatThrownBy(() -> publisher.publish(target(), "one".getBytes(UTF_8)))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageContaining("Snapshot write to " + target() + " failed")
        .hasRootCauseMessage("client closed");
    assertThat(lock.holder(KEY)).isEmpty();
  }

  /** The in-JVM lock, except that a release ends with an unchecked exception (after releasing). */
  private final class UncheckedReleaseFailure extends ForwardingLockService {
    UncheckedReleaseFailure() {
      super(ForwardingLockService.unclosable(lock));
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
                      throw new IllegalStateException("lock client already stopped");
                    }
                  });
    }
  }

  @Test
  void anUncheckedReleaseFailureStillGivesTheInterruptBack() throws Exception {
    HeldWriteFileIO store =
        new HeldWriteFileIO(new LocalFileIO(), path -> path.name().equals("snapshot-1"));
    LockedPublisher publisher = publisher(store, null, new UncheckedReleaseFailure(), options());
    CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
    Running running = publishOnThread(publisher, interruptedAfter);
    try {
      store.awaitInFlight(TestTiming.seconds(10));
      running.thread().interrupt();
      store.land();
      assertThat(running.await())
          .hasValueSatisfying(
              failure ->
                  assertThat(failure)
                      .isInstanceOf(IllegalStateException.class)
                      .hasMessage("lock client already stopped"));
      assertThat(interruptedAfter.get()).as("the interrupt is given back").isTrue();
      assertThat(Files.readString(dir.resolve("snapshot-1"))).isEqualTo("one");
    } finally {
      store.land();
    }
    // Inside holding(), which has no interrupt of its own to give back: the release's failure.
    assertThatThrownBy(() -> publisher.holding(() -> "done", () -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("lock client already stopped");
    assertThat(lock.holder(KEY)).isEmpty();
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
