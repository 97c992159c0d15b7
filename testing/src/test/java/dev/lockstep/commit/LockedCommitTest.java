package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.BlindPutStore;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.InJvmLockService;
import dev.lockstep.testing.TestTiming;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code commit.strategy=lock} on a store without primitives (the in-JVM test lock). */
class LockedCommitTest {

  private static final String KEY = "db.t";

  @TempDir java.nio.file.Path dir;
  private InJvmLockService lock = new InJvmLockService();
  private final FaultInjectingStore io =
      FaultInjectingStore.wrap(new BlindPutStore(new LocalFileIO()));

  @AfterEach
  void closeLock() {
    lock.close();
  }

  private Path snapshots() {
    return Path.of(dir.toString());
  }

  private static CommitOptions options(String... keyValues) {
    Map<String, String> map = new HashMap<>(Map.of("lock.enabled", "true", "lock.type", "in-jvm"));
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return CommitOptions.from(map);
  }

  private LockedPublisher publisher(CommitOptions options) {
    return new LockedPublisher(io, null, lock, KEY, options, null);
  }

  /**
   * Over blind puts (check-then-put with replace) only the lock keeps two writers of one snapshot
   * apart: with a lock that lets two holders in, commits are lost here (the local store's own
   * link(2) publish would have hidden that).
   */
  @Test
  void eightRacingThreadsCommitSafelyUnderTheLock() throws Exception {
    FileIO blind = new BlindPutStore(new LocalFileIO());
    ConcurrentCommits race = new ConcurrentCommits();

    race.run(
        8,
        50,
        w ->
            SnapshotCommitter.builder(blind, snapshots(), KEY)
                .options(options())
                .lockService(lock)
                .build());

    race.assertInvariants(new SnapshotLog(blind, snapshots()), 400);
    assertThat(lock.grantedLeases()).isGreaterThanOrEqualTo(400);
    assertThat(lock.holder(KEY)).as("every lease was released").isEmpty();
  }

  @Test
  void withoutTheLockTheSameStoreIsRefused() {
    FileIO hidden = new CapabilityHidingFileIO(new LocalFileIO());

    assertThatThrownBy(
            () ->
                SnapshotCommitter.builder(hidden, snapshots(), KEY)
                    .options(CommitOptions.from(Map.of()))
                    .build())
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("lock.enabled=true")
        .hasMessageContaining("lock.type");
  }

  @Test
  void aLeaseShorterThanTheMarginIsRefusedBeforeWriting() throws Exception {
    lock = new InJvmLockService(TestTiming.millis(300));
    LockedPublisher publisher =
        publisher(options("commit.lease-margin", TestTiming.seconds(1).toMillis() + " ms"));
    Path target = snapshots().child("snapshot-1");

    assertThatThrownBy(() -> publisher.publish(target, "x".getBytes(UTF_8)))
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("commit.lease-margin");
    assertThat(io.calls(Operation.WRITE)).isZero();
    assertThat(io.exists(target)).isFalse();
    assertThat(lock.holder(KEY)).as("released after the refusal").isEmpty();
  }

  @Test
  void aLeaseWithEnoughTimeLeftWrites() throws Exception {
    lock = new InJvmLockService(TestTiming.seconds(30));
    LockedPublisher publisher = publisher(options("commit.lease-margin", "1 s"));
    Path target = snapshots().child("snapshot-1");

    publisher.publish(target, "x".getBytes(UTF_8));

    assertThat(io.calls(Operation.WRITE)).isEqualTo(1);
    assertThat(io.exists(target)).isTrue();
    assertThat(lock.holder(KEY)).isEmpty();
  }

  @Test
  void aLeaseLostBeforeThePlainWriteLandsNothing() throws Exception {
    // The holder pauses right after acquiring (here: while checking that snapshot-1 is absent),
    // long enough for its lease to end.
    io.beforeLanding(Operation.EXISTS, (op, path) -> lock.expire(KEY));
    Path target = snapshots().child("snapshot-1");

    assertThatThrownBy(() -> publisher(options()).publish(target, "x".getBytes(UTF_8)))
        .isInstanceOf(LockLostException.class);

    assertThat(lock.revokedLeases()).isEqualTo(1);
    assertThat(io.calls(Operation.WRITE)).as("the write was never started").isZero();
    assertThat(io.exists(target)).isFalse();
  }

  @Test
  void aPlainWriteThatOutlastsItsLeaseIsAbandonedAndTheCommitLandsOnceUnderANewLease()
      throws Exception {
    lock = new InJvmLockService(TestTiming.seconds(2));
    AtomicBoolean stallOnce = new AtomicBoolean(true);
    io.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          if (path.name().startsWith("snapshot-") && stallOnce.getAndSet(false)) {
            try {
              Thread.sleep(TestTiming.seconds(60).toMillis()); // a holder paused mid-write
            } catch (InterruptedException e) {
              throw new InterruptedIOException("write abandoned");
            }
          }
        });
    SnapshotCommitter committer =
        SnapshotCommitter.builder(io, snapshots(), KEY)
            .options(options("commit.lease-margin", "500 ms"))
            .lockService(lock)
            .build();
    byte[] ours = "{\"commitId\":\"only-once\"}".getBytes(UTF_8);

    long start = System.nanoTime();
    assertThat(committer.commit(1, SnapshotContent.of(ours)).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("the stalled write was cut off at the lease budget, not after 60 s")
        .isLessThan(TestTiming.seconds(30));
    assertThat(lock.grantedLeases()).as("a second lease committed it").isEqualTo(2);
    assertThat(committer.log().listIds()).containsExactly(1L);
    assertThat(committer.log().read(1)).isEqualTo(ours);
    committer.close();
  }

  @Test
  void aStalledWriteIsReportedUncertainAndDoesNotLand() throws Exception {
    lock = new InJvmLockService(TestTiming.seconds(1));
    io.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          try {
            Thread.sleep(TestTiming.seconds(60).toMillis());
          } catch (InterruptedException e) {
            throw new InterruptedIOException("write abandoned");
          }
        });
    Path target = snapshots().child("snapshot-1");
    LockedPublisher publisher = publisher(options("commit.lease-margin", "200 ms"));

    assertThatThrownBy(() -> publisher.publish(target, "x".getBytes(UTF_8)))
        .isInstanceOf(UncertainWriteException.class)
        .hasMessageContaining("lease time left")
        // A person reads it: the budget rounded, not a count of nanoseconds.
        .hasMessageMatching("(?s).*lease time left \\(\\d+(\\.\\d)? (s|ms)\\).*");
    publisher.shutdown();

    assertThat(io.exists(target)).isFalse();
  }

  @Test
  void aLeaseLostWhileThePlainWriteLandedIsUncertainAndResolvedByReadBack() throws Exception {
    io.beforeLanding(Operation.WRITE, (op, path) -> lock.expire(KEY));
    SnapshotCommitter committer =
        SnapshotCommitter.builder(io, snapshots(), KEY)
            .options(options())
            .lockService(lock)
            .build();
    byte[] ours = "{\"commitId\":\"c1\"}".getBytes(UTF_8);

    assertThatThrownBy(() -> publisher(options()).publish(committer.log().snapshotPath(1), ours))
        .isInstanceOf(UncertainWriteException.class)
        .hasMessageContaining("lease was lost");
    assertThat(committer.commit(1, SnapshotContent.of(ours)).outcome())
        .as("read back finds our bytes")
        .isEqualTo(CommitOutcome.COMMITTED);
    assertThat(committer.log().listIds()).containsExactly(1L);
  }

  /**
   * A holder whose lease lapsed unseen (a paused former holder) puts its bytes right after ours
   * land: only the read-back after the plain write can tell, and it must say CONFLICT, not
   * COMMITTED (issue 18, item 4: without the read-back this commit is acknowledged and lost).
   */
  @Test
  void anotherWritersBytesReplacingOursRightAfterOurWriteIsAConflict() throws Exception {
    byte[] stale = "{\"commitId\":\"stale-holder\"}".getBytes(UTF_8);
    FileIO racing =
        new BlindPutStore(new LocalFileIO()) {
          @Override
          public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
            OutputStream ours = super.newOutputStream(path, overwrite);
            return new FilterOutputStream(ours) {
              @Override
              public void close() throws IOException {
                super.close(); // ours lands...
                try (OutputStream theirs = delegate().newOutputStream(path, true)) {
                  theirs.write(stale); // ...and the stale holder's blind PUT replaces it at once
                }
              }
            };
          }
        };
    SnapshotCommitter committer =
        SnapshotCommitter.builder(racing, snapshots(), KEY)
            .options(options())
            .lockService(lock)
            .build();

    CommitOutcome outcome =
        committer
            .commit(1, SnapshotContent.of("{\"commitId\":\"ours\"}".getBytes(UTF_8)))
            .outcome();

    assertThat(outcome).isEqualTo(CommitOutcome.CONFLICT);
    assertThat(committer.log().read(1)).isEqualTo(stale);
    committer.close();
  }

  @Test
  void anUnavailableLockFailsTheCommitAndWritesNothing() throws Exception {
    Lease other = lock.acquire(KEY, Duration.ZERO).orElseThrow();
    SnapshotCommitter committer =
        SnapshotCommitter.builder(io, snapshots(), KEY)
            .options(options("lock-acquire-timeout", "100 ms", "commit.write-attempts", "2"))
            .lockService(lock)
            .build();

    assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of("x".getBytes(UTF_8))))
        .isInstanceOf(LockNotAcquiredException.class)
        .hasMessageContaining("nothing was written")
        .hasMessageContaining("lock-acquire-timeout");
    assertThat(io.calls(Operation.WRITE)).isZero();
    assertThat(other.isHeld()).as("the other holder's lease is untouched").isTrue();
    other.close();
  }

  @Test
  void fencingTokensGrowWithEveryCommit() throws Exception {
    SnapshotCommitter committer =
        SnapshotCommitter.builder(io, snapshots(), KEY)
            .options(options())
            .lockService(lock)
            .build();
    long before;
    try (Lease first = lock.acquire(KEY, Duration.ZERO).orElseThrow()) {
      before = first.fencingToken();
    }

    committer.commit(1, SnapshotContent.of("a".getBytes(UTF_8))).outcome();
    committer.commit(2, SnapshotContent.of("b".getBytes(UTF_8))).outcome();

    try (Lease after = lock.acquire(KEY, Duration.ZERO).orElseThrow()) {
      assertThat(after.fencingToken()).isEqualTo(before + 3);
    }
  }
}
