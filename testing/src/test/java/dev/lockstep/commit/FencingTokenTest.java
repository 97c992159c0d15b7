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
import dev.lockstep.lock.LockService;
import dev.lockstep.testing.InJvmLockService;
import dev.lockstep.testing.PausingLockService;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing tokens in snapshots ({@code commit.strategy=lock}, in-JVM test lock): each locked
 * snapshot records the token it was committed under, and a holder whose lease lapsed and was taken
 * over is refused once the newer holder has committed.
 *
 * <p>The stale holders here pause right after their last lease check ({@link PausingLockService}),
 * so that their lease still looked held to them; the store is a bare blind PUT, so that nothing but
 * the token check stands between such a holder and the newer holder's snapshot.
 */
class FencingTokenTest {

  private static final String KEY = "db.t";

  @TempDir java.nio.file.Path dir;
  private final InJvmLockService lock = new InJvmLockService();
  private final FileIO bare = BlindPutStore.bare(new LocalFileIO());

  @AfterEach
  void closeLock() {
    lock.close();
  }

  /** Test snapshot format: commit id, then the lock and token ("-" for none), one per line. */
  private static SnapshotContent content(String commitId) {
    return fencing ->
        (commitId + "\n" + fencing.map(f -> f.lock() + "\n" + f.token()).orElse("-\n-"))
            .getBytes(UTF_8);
  }

  private static final FencingTokenReader READER =
      bytes -> {
        String[] lines = new String(bytes, UTF_8).split("\n");
        if (lines.length != 3) {
          throw new IOException("not a test snapshot: " + new String(bytes, UTF_8));
        }
        return lines[1].equals("-")
            ? Optional.empty()
            : Optional.of(new FencingToken(lines[1], Long.parseLong(lines[2])));
      };

  private static Optional<FencingToken> tokenOf(SnapshotLog log, long id) throws IOException {
    return READER.read(log.read(id));
  }

  private static String commitIdOf(SnapshotLog log, long id) throws IOException {
    return new String(log.read(id), UTF_8).split("\n")[0];
  }

  private static CommitOptions options(String... keyValues) {
    Map<String, String> map = new HashMap<>(Map.of("lock.enabled", "true", "lock.type", "in-jvm"));
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return CommitOptions.from(map);
  }

  private SnapshotCommitter committer(
      FileIO store, LockService lockService, CommitOptions options) {
    return SnapshotCommitter.builder(store, Path.of(dir.toString()), KEY)
        .options(options)
        .lockService(lockService)
        .fencing(READER)
        .build();
  }

  @Test
  void aHolderWhoseLeaseWasTakenOverIsRefusedAfterTheNewHolderCommitted() throws Exception {
    PausingLockService pausing = new PausingLockService(lock);
    SnapshotCommitter stale = committer(bare, pausing, options());
    SnapshotCommitter newer = committer(bare, lock, options());
    AtomicReference<CommitOutcome> newerOutcome = new AtomicReference<>();
    pausing.pauseAfterCheck(
        2,
        lease -> {
          lock.expire(KEY); // the stale holder's lease runs out while it is paused ...
          newerOutcome.set(
              newer.commit(1, content("newer")).outcome()); // ... and another holder commits
        });

    assertThatThrownBy(() -> stale.commit(1, content("stale")))
        .isInstanceOf(FencedCommitException.class)
        .hasMessageContaining("newer token")
        .hasMessageContaining("Nothing was written")
        .satisfies(
            e -> {
              FencedCommitException fenced = (FencedCommitException) e;
              assertThat(fenced.ours().token()).isLessThan(fenced.newer().token());
              assertThat(fenced.newerSnapshot().name()).isEqualTo("snapshot-1");
            });

    assertThat(newerOutcome.get()).isEqualTo(CommitOutcome.COMMITTED);
    assertThat(commitIdOf(stale.log(), 1))
        .as("the newer holder's snapshot is intact")
        .isEqualTo("newer");
    assertThat(lock.grantedLeases())
        .as("the stale holder did not retry under a new lease")
        .isEqualTo(2);
    stale.close();
    newer.close();
  }

  @Test
  void aStaleHolderNeverPublishesOnTopOfANewerHoldersSnapshot() throws Exception {
    PausingLockService pausing = new PausingLockService(lock);
    SnapshotCommitter stale = committer(bare, pausing, options());
    SnapshotCommitter newer = committer(bare, lock, options());
    // The stale holder was granted its lease before snapshot 1 existed; snapshot 1 then comes from
    // the newer holder while it is paused, so snapshot 2 would build on a history it never saw.
    pausing.pauseAfterCheck(
        2,
        lease -> {
          lock.expire(KEY);
          newer.commit(1, content("newer")).outcome();
        });

    assertThatThrownBy(() -> stale.commit(2, content("stale")))
        .isInstanceOf(FencedCommitException.class)
        .satisfies(
            e ->
                assertThat(((FencedCommitException) e).newerSnapshot().name())
                    .isEqualTo("snapshot-1"));

    assertThat(stale.log().listIds()).containsExactly(1L);
    stale.close();
    newer.close();
  }

  @Test
  void tokensOfConsecutiveLockedSnapshotsNeverDecrease() throws Exception {
    int writers = 4;
    int commits = 20;
    FileIO blind = new BlindPutStore(new LocalFileIO());
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CyclicBarrier start = new CyclicBarrier(writers);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      SnapshotCommitter committer = committer(blind, lock, options());
      done.add(
          pool.submit(
              () -> {
                start.await(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
                for (int c = 0; c < commits; c++) {
                  String commitId = UUID.randomUUID().toString();
                  while (committer
                          .commit(committer.log().latestId().orElse(0) + 1, content(commitId))
                          .outcome()
                      != CommitOutcome.COMMITTED) {
                    // conflict: another writer took that id; try the next one
                  }
                }
                committer.close();
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get(TestTiming.seconds(120).toMillis(), TimeUnit.MILLISECONDS);
    }
    pool.shutdown();

    SnapshotLog log = new SnapshotLog(blind, Path.of(dir.toString()));
    assertThat(log.listIds()).hasSize(writers * commits);
    long previous = Long.MIN_VALUE;
    for (long id = 1; id <= writers * commits; id++) {
      FencingToken token = tokenOf(log, id).orElseThrow();
      assertThat(token.lock()).isEqualTo("in-jvm:" + KEY);
      assertThat(token.token()).as("token of snapshot %d", id).isGreaterThan(previous);
      previous = token.token();
    }
  }

  @Test
  void lockFreeStrategiesRecordNoToken() throws Exception {
    SnapshotCommitter committer =
        committer(
            new LocalFileIO(),
            null,
            CommitOptions.from(Map.of("commit.strategy", "atomic-create")));

    assertThat(committer.commit(1, content("free")).outcome()).isEqualTo(CommitOutcome.COMMITTED);

    assertThat(tokenOf(committer.log(), 1)).isEmpty();
  }

  @Test
  void plainByteCommitsStillWorkAndRecordNothing() throws Exception {
    SnapshotCommitter committer = committer(bare, lock, options());
    byte[] plain = content("plain").bytes(Optional.empty());

    assertThat(committer.commit(1, SnapshotContent.of(plain)).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);
    assertThat(committer.commit(2, content("fenced")).outcome()).isEqualTo(CommitOutcome.COMMITTED);

    assertThat(tokenOf(committer.log(), 1)).isEmpty();
    assertThat(tokenOf(committer.log(), 2))
        .hasValueSatisfying(token -> assertThat(token.lock()).isEqualTo("in-jvm:" + KEY));
    committer.close();
  }

  /**
   * A table whose newest snapshot carries a larger token of a lock service that was replaced (a new
   * ZooKeeper ensemble starts its zxids again) refuses locked commits in the same scope; a new
   * {@code commit.fencing-scope} starts a new sequence.
   */
  @Test
  void tokensAreComparedOnlyWithinOneFencingScope() throws Exception {
    SnapshotLog log = new SnapshotLog(bare, Path.of(dir.toString()));
    try (var out = bare.newOutputStream(log.snapshotPath(1), false)) {
      out.write(
          content("old-service").bytes(Optional.of(new FencingToken("in-jvm:" + KEY, 1_000_000))));
    }

    SnapshotCommitter sameScope = committer(bare, lock, options());
    assertThatThrownBy(() -> sameScope.commit(2, content("refused")))
        .isInstanceOf(FencedCommitException.class);

    SnapshotCommitter newScope = committer(bare, lock, options("commit.fencing-scope", "in-jvm-2"));
    assertThat(newScope.commit(2, content("accepted")).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);
    assertThat(tokenOf(log, 2))
        .hasValueSatisfying(token -> assertThat(token.lock()).isEqualTo("in-jvm-2:" + KEY));
    sameScope.close();
    newScope.close();
  }

  /**
   * Fenced after an earlier attempt of the same commit was uncertain: that write may still land, so
   * the outcome is unknown, not "nothing written".
   */
  @Test
  void fencedAfterAnUncertainAttemptIsUnknown() throws Exception {
    InJvmLockService shortLeases = new InJvmLockService(TestTiming.seconds(2));
    PausingLockService pausing = new PausingLockService(shortLeases);
    FaultInjectingStore stalling = FaultInjectingStore.wrap(bare);
    AtomicBoolean stallOnce = new AtomicBoolean(true);
    SnapshotCommitter newer = committer(bare, shortLeases, options());
    stalling.beforeLanding(
        Operation.WRITE,
        (op, path) -> {
          if (stallOnce.getAndSet(false)) {
            // The first attempt's write hangs past its lease budget (then it is cancelled,
            // unlanded);
            // the second attempt's lease pauses after its last check while a newer holder commits.
            pausing.pauseAfterCheck(
                2,
                lease -> {
                  shortLeases.expire(KEY);
                  newer.commit(1, content("newer")).outcome();
                });
            try {
              Thread.sleep(TestTiming.seconds(60).toMillis());
            } catch (InterruptedException e) {
              throw new InterruptedIOException("write abandoned");
            }
          }
        });
    SnapshotCommitter stale =
        committer(stalling, pausing, options("commit.lease-margin", "500 ms"));

    assertThatThrownBy(() -> stale.commit(1, content("stale")))
        .isInstanceOf(CommitStateUnknownException.class)
        .cause()
        .isInstanceOf(FencedCommitException.class)
        // The refusal carries the uncertain attempt's failure, the reason it is not "nothing
        // written".
        .satisfies(
            fenced ->
                assertThat(fenced.getSuppressed())
                    .hasSize(1)
                    .hasOnlyElementsOfType(UncertainWriteException.class));

    assertThat(commitIdOf(stale.log(), 1)).isEqualTo("newer");
    stale.close();
    newer.close();
    shortLeases.close();
  }
}
