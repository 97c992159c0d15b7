package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.BlindPutStore;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.InJvmLockService;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SnapshotCommitter#holding}: a committer that reads the latest snapshot and publishes its
 * successor under one lease never conflicts with another locked committer, and the lease is the one
 * its snapshots record. Real in-JVM lock, store without primitives (blind puts).
 */
class HoldingTest {

  private static final String KEY = "db.t";

  @TempDir java.nio.file.Path dir;
  private final InJvmLockService lock = new InJvmLockService();
  private final FileIO store = new BlindPutStore(new LocalFileIO());

  @AfterEach
  void closeLock() {
    lock.close();
  }

  private SnapshotCommitter committer() {
    return SnapshotCommitter.builder(store, Path.of(dir.toString()), KEY)
        .options(CommitOptions.from(Map.of("lock.enabled", "true", "lock.type", "in-jvm")))
        .lockService(lock)
        .build();
  }

  private static long next(SnapshotLog log) throws IOException {
    List<Long> ids = log.listIds();
    return ids.isEmpty() ? 1 : ids.get(ids.size() - 1) + 1;
  }

  /**
   * Four committers in a tight loop, each reading the newest id under the lease and publishing the
   * next: every attempt commits (no conflict at all), no id is taken twice, none is skipped.
   * Without holding, the id read before the lock is often stale by the time the lock is had.
   */
  @Test
  void committersThatReadTheLatestUnderTheLeaseNeverConflict() throws Exception {
    int writers = 4;
    int commits = 40;
    CyclicBarrier start = new CyclicBarrier(writers);
    AtomicInteger conflicts = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      String user = "w" + w;
      futures.add(
          pool.submit(
              () -> {
                try (SnapshotCommitter committer = committer()) {
                  start.await();
                  for (int c = 0; c < commits; c++) {
                    String content = user + "/" + c;
                    CommitOutcome outcome =
                        committer.holding(
                            () -> {
                              assertThat(lock.holder(KEY)).isPresent();
                              long id = next(committer.log());
                              return committer
                                  .commit(id, SnapshotContent.of(content.getBytes(UTF_8)))
                                  .outcome();
                            });
                    if (outcome != CommitOutcome.COMMITTED) {
                      conflicts.incrementAndGet();
                    }
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get((long) (2 * TestTiming.FACTOR) + 1, TimeUnit.MINUTES);
    }
    pool.shutdown();

    assertThat(conflicts).hasValue(0);
    SnapshotLog log = new SnapshotLog(store, Path.of(dir.toString()));
    assertThat(log.listIds())
        .hasSize(writers * commits)
        .containsExactlyElementsOf(
            java.util.stream.LongStream.rangeClosed(1, writers * commits).boxed().toList());
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (long id : log.listIds()) {
      assertThat(seen.add(new String(SnapshotLog.readFile(store, log.snapshotPath(id)), UTF_8)))
          .isTrue();
    }
    // One lease per commit: the publishes inside holding() took none of their own.
    assertThat(lock.grantedLeases()).isEqualTo(writers * commits);
    assertThat(lock.holder(KEY)).as("every lease was released").isEmpty();
  }

  @Test
  void publishesInsideRecordTheHeldLeasesTokenAndTheLeaseIsReleasedAfterAFailure()
      throws Exception {
    try (SnapshotCommitter committer = committer()) {
      List<Optional<FencingToken>> tokens = new ArrayList<>();
      long held =
          committer.holding(
              () -> {
                long token = lock.holder(KEY).orElseThrow().fencingToken();
                committer
                    .commit(
                        1,
                        fencing -> {
                          tokens.add(fencing);
                          return "one".getBytes(UTF_8);
                        })
                    .outcome();
                return token;
              });
      assertThat(tokens)
          .singleElement()
          .satisfies(t -> assertThat(t.orElseThrow().token()).isEqualTo(held));
      assertThat(lock.holder(KEY)).isEmpty();

      assertThatThrownBy(
              () ->
                  committer.holding(
                      () -> {
                        throw new IOException("boom");
                      }))
          .hasMessage("boom");
      assertThat(lock.holder(KEY)).as("released after a failure").isEmpty();

      assertThatThrownBy(() -> committer.holding(() -> committer.holding(() -> 1)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Already holding");
      assertThat(lock.holder(KEY)).isEmpty();
    }
  }

  @Test
  void aLockFreeCommitterJustRunsTheWork() throws Exception {
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(new LocalFileIO(), Path.of(dir.toString()), KEY)
            .options(CommitOptions.from(Map.of()))
            .build()) {
      assertThat(committer.locked()).isFalse();
      assertThat(
              committer.holding(
                  () -> committer.commit(1, SnapshotContent.of("x".getBytes(UTF_8))).outcome()))
          .isEqualTo(CommitOutcome.COMMITTED);
      assertThat(lock.grantedLeases()).isZero();
    }
  }
}
