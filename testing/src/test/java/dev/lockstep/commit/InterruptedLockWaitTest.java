package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.testing.ForwardingLockService;
import dev.lockstep.testing.InJvmLockService;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A committer interrupted while it waits for the table's lock (a cancelled Flink or Spark task):
 * nothing of this attempt was written, so the interrupt is the answer, unless an earlier attempt of
 * the same commit was uncertain, whose write may still land: then the outcome is unknown, and the
 * interrupt is kept. Found unchecked by mutation testing (scripts/mutation). Real in-JVM lock, real
 * local store with an injected fault.
 */
class InterruptedLockWaitTest {

  private static final String KEY = "db.t";

  @TempDir java.nio.file.Path dir;
  private final InJvmLockService lock = new InJvmLockService();
  private Lease other;

  @AfterEach
  void closeLock() throws IOException {
    if (other != null) {
      other.close();
    }
    lock.close();
  }

  /**
   * The table's lock as the committer sees it: from its {@code takenBefore}-th acquire on, another
   * writer has just taken the lease; {@code waiting} opens when the committer starts to wait.
   */
  private final class TakenByAnother extends ForwardingLockService {
    final CountDownLatch waiting = new CountDownLatch(1);
    private final AtomicInteger acquires = new AtomicInteger();
    private final int takenBefore;

    TakenByAnother(int takenBefore) {
      super(ForwardingLockService.unclosable(lock));
      this.takenBefore = takenBefore;
    }

    @Override
    public Optional<Lease> acquire(String key, Duration timeout)
        throws IOException, InterruptedException {
      if (acquires.incrementAndGet() == takenBefore) {
        other = lock.acquire(key, Duration.ZERO).orElseThrow();
      }
      if (!timeout.isZero()) {
        waiting.countDown();
      }
      return super.acquire(key, timeout);
    }
  }

  /** The outcome of a commit run on its own thread, and its interrupt flag afterwards. */
  private record Outcome(Throwable failure, boolean interrupted) {}

  private CompletableFuture<Outcome> commitOnThread(
      FaultInjectingStore store, TakenByAnother service) throws InterruptedException {
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    Thread committing =
        new Thread(
            () -> {
              Throwable failure = null;
              try (SnapshotCommitter committer =
                  SnapshotCommitter.builder(store, Path.of(dir.toString()), KEY)
                      .options(
                          CommitOptions.from(Map.of("lock.enabled", "true", "lock.type", "in-jvm")))
                      .lockService(service)
                      .build()) {
                committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8)));
              } catch (Throwable t) {
                failure = t;
              }
              outcome.complete(new Outcome(failure, Thread.currentThread().isInterrupted()));
            },
            "committer");
    committing.start();
    if (!service.waiting.await(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the committer never waited for the lock");
    }
    committing.interrupt();
    return outcome;
  }

  @Test
  void interruptedWhileWaitingForTheLockIsAnInterruptAndWritesNothing() throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    Outcome outcome =
        commitOnThread(store, new TakenByAnother(1))
            .get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
    assertThat(outcome.failure()).isInstanceOf(InterruptedException.class);
    assertThat(store.calls(Operation.CREATE)).as("nothing written").isZero();
    assertThat(dir.resolve("snapshot-1")).doesNotExist();
  }

  @Test
  void interruptedWhileWaitingForTheLockAfterAnUncertainAttemptIsUnknownAndKeepsTheInterrupt()
      throws Exception {
    // The first attempt's create is sent and its answer lost (it did not land): uncertain, and
    // absent when read back, so the commit tries again; another writer takes the lock first.
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    AtomicBoolean loseOnce = new AtomicBoolean(true);
    store.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1") && loseOnce.getAndSet(false)) {
            throw new UncertainWriteException(path, "connection reset, request lost", null);
          }
        });
    Outcome outcome =
        commitOnThread(store, new TakenByAnother(2))
            .get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
    assertThat(outcome.failure())
        .isInstanceOf(CommitStateUnknownException.class)
        .hasCauseInstanceOf(UncertainWriteException.class);
    assertThat(outcome.interrupted()).as("the interrupt is kept").isTrue();
    assertThat(store.calls(Operation.CREATE)).as("written once").isEqualTo(1);
  }
}
