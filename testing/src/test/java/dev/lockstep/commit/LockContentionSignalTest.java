package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.BlindPutStore;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.testing.InJvmLockService;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SnapshotCommitter#commit} says whether the table's lock was contended, so that the engine
 * backs off only then: a conflict on a free lock or on a lock-free store is reported uncontended.
 */
class LockContentionSignalTest {

  private static final String KEY = "db.t";

  @TempDir java.nio.file.Path dir;
  private final InJvmLockService lock = new InJvmLockService();

  /** Counts down when an acquire that may wait starts, i.e. after the first try found it held. */
  private final CountDownLatch waiting = new CountDownLatch(1);

  /** Acquires that may wait, counted. */
  private final AtomicInteger waits = new AtomicInteger();

  private final LockService observed =
      new LockService() {
        @Override
        public Optional<Lease> acquire(String key, Duration timeout)
            throws IOException, InterruptedException {
          if (!timeout.isZero()) {
            waits.incrementAndGet();
            waiting.countDown();
          }
          return lock.acquire(key, timeout);
        }

        @Override
        public Duration holderDeathBound() {
          return lock.holderDeathBound();
        }

        @Override
        public void close() {}
      };
  private final FileIO store = new BlindPutStore(new LocalFileIO());

  @AfterEach
  void closeLock() {
    lock.close();
  }

  private SnapshotCommitter locked(String... keyValues) {
    Map<String, String> map = new HashMap<>(Map.of("lock.enabled", "true", "lock.type", "in-jvm"));
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return SnapshotCommitter.builder(store, Path.of(dir.toString()), KEY)
        .options(CommitOptions.from(map))
        .lockService(observed)
        .build();
  }

  /** What another holder does: write snapshot-1 under its lease. */
  private void writeAsHolder(SnapshotCommitter committer, String content) throws IOException {
    try (OutputStream out = store.newOutputStream(committer.log().snapshotPath(1), false)) {
      out.write(content.getBytes(UTF_8));
    }
  }

  @Test
  void aConflictOnAFreeLockIsNotContended() throws Exception {
    SnapshotCommitter committer = locked();

    assertThat(committer.commit(1, SnapshotContent.of("a".getBytes(UTF_8))))
        .isEqualTo(new CommitAttempt(CommitOutcome.COMMITTED, false));
    assertThat(committer.commit(1, SnapshotContent.of("b".getBytes(UTF_8))))
        .as("a stale base on a free lock")
        .isEqualTo(new CommitAttempt(CommitOutcome.CONFLICT, false));
    assertThat(waiting.getCount()).as("no acquire had to wait").isEqualTo(1);
  }

  @Test
  void aConflictAfterWaitingForAnotherHolderIsContended() throws Exception {
    SnapshotCommitter committer = locked();
    Lease other = lock.acquire(KEY, Duration.ZERO).orElseThrow();
    CompletableFuture<CommitAttempt> attempt =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return committer.commit(1, SnapshotContent.of("ours".getBytes(UTF_8)));
              } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(waiting.await(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    writeAsHolder(committer, "theirs");
    other.close();

    assertThat(attempt.get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(new CommitAttempt(CommitOutcome.CONFLICT, true));
    assertThat(committer.commit(2, SnapshotContent.of("ours".getBytes(UTF_8))).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);
  }

  @Test
  void anAcquireTimeoutThatFindsTheSnapshotTakenIsAContendedConflict() throws Exception {
    SnapshotCommitter committer =
        locked("lock-acquire-timeout", "50 ms", "commit.write-attempts", "1");
    try (Lease other = lock.acquire(KEY, Duration.ZERO).orElseThrow()) {
      writeAsHolder(committer, "theirs");

      assertThat(committer.commit(1, SnapshotContent.of("ours".getBytes(UTF_8))))
          .isEqualTo(new CommitAttempt(CommitOutcome.CONFLICT, true));
      assertThat(other.isHeld()).isTrue();
    }
  }

  @Test
  void aLockThatCannotBeHadEndsTheCommitAfterOneWait() throws Exception {
    SnapshotCommitter committer =
        locked("lock-acquire-timeout", "50 ms", "commit.write-attempts", "3");
    try (Lease other = lock.acquire(KEY, Duration.ZERO).orElseThrow()) {
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of("ours".getBytes(UTF_8))))
          .isInstanceOf(LockNotAcquiredException.class)
          .hasMessageContaining("'lock-acquire-timeout'")
          .hasMessageContaining("nothing was written");
      assertThat(waits.get()).as("acquires that waited out the timeout").isEqualTo(1);
      assertThat(store.exists(committer.log().snapshotPath(1))).isFalse();
      assertThat(other.isHeld()).isTrue();
    }
    assertThat(committer.commit(1, SnapshotContent.of("ours".getBytes(UTF_8))).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);
  }

  @Test
  void lockFreeStrategiesNeverReportContention() throws Exception {
    SnapshotCommitter committer =
        SnapshotCommitter.builder(new LocalFileIO(), Path.of(dir.toString()), KEY)
            .options(CommitOptions.from(Map.of()))
            .build();

    assertThat(committer.commit(1, SnapshotContent.of("a".getBytes(UTF_8))))
        .isEqualTo(new CommitAttempt(CommitOutcome.COMMITTED, false));
    assertThat(committer.commit(1, SnapshotContent.of("b".getBytes(UTF_8))))
        .isEqualTo(new CommitAttempt(CommitOutcome.CONFLICT, false));
  }
}
