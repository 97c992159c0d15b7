package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.HeldWriteFileIO;
import dev.lockstep.testing.InJvmLockService;
import dev.lockstep.testing.TestTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plain write under the lock that its committer gives up on (interrupted, as a cancelled Flink or
 * Spark task is, or over its lease budget) while the request is already on the wire and lands late,
 * with a second committer waiting for the lock (issue 18, item 2).
 *
 * <p>The store has no conditional write (blind PUT with replace), so only the lock keeps the two
 * apart: had the first committer released the lock at once, the second would find {@code
 * snapshot-1} absent, write it, be told COMMITTED, and then lose it to the late write. The
 * invariant checked: every acknowledged commit is in the final history at the id it was
 * acknowledged for, and no commit is there twice.
 */
class LateLandingWriteTest {

  private static final String KEY = "db.t";

  @TempDir java.nio.file.Path dir;
  private InJvmLockService lock;
  private final List<Thread> started = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    for (Thread thread : started) {
      thread.interrupt();
      thread.join(TestTiming.seconds(10).toMillis());
    }
    if (lock != null) {
      lock.close();
    }
  }

  @Test
  void anInterruptedWriterKeepsTheLockUntilItsWriteHasLanded() throws Exception {
    lock = new InJvmLockService(); // one minute: the lease outlives the late write
    Race race = new Race(CommitOptions.from(Map.of("lock.enabled", "true", "lock.type", "in-jvm")));

    race.startFirstAndHoldItsWrite();
    race.startSecond();
    race.first.interrupt();
    race.landAfterSecondOrAfter(TestTiming.seconds(2));

    race.assertEveryAcknowledgedCommitIsInTheHistory();
    // The interrupt did not cut the request short (which would only have made its outcome
    // unknown): the write was waited for and its committer knows it committed.
    assertThat(race.store.cancelled()).as("the write was not interrupted").isFalse();
    assertThat(race.acknowledged).as("failed: %s", race.failed).containsEntry("first", 1L);
  }

  @Test
  void aWriteOverItsLeaseBudgetKeepsTheLockUntilItHasLanded() throws Exception {
    // The write's budget is lease time left minus the margin (3 s); the write outlasts it, and the
    // lease still has about the margin left when the write is abandoned. One write attempt: the
    // first committer does not race the second for the lock again with the same bytes (which would
    // hide the loss when it won), it gives up with an unknown outcome as a commit timeout would.
    lock = new InJvmLockService(TestTiming.seconds(6));
    Race race =
        new Race(
            CommitOptions.from(
                Map.of(
                    "lock.enabled",
                    "true",
                    "lock.type",
                    "in-jvm",
                    "commit.lease-margin",
                    TestTiming.seconds(3).toMillis() + " ms",
                    "commit.write-attempts",
                    "1")));

    race.startFirstAndHoldItsWrite();
    race.startSecond();
    race.store.awaitCancelled(TestTiming.seconds(20));
    race.landAfterSecondOrAfter(TestTiming.seconds(1));

    race.assertEveryAcknowledgedCommitIsInTheHistory();
  }

  /** Two committers of one table over one blind-put store; the first one's first write is held. */
  private final class Race {
    final HeldWriteFileIO store =
        new HeldWriteFileIO(new LocalFileIO(), path -> path.name().equals("snapshot-1"));
    final CommitOptions options;
    final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    final Map<String, Throwable> failed = new ConcurrentHashMap<>();
    final CompletableFuture<Void> secondDone = new CompletableFuture<>();
    Thread first;
    Thread second;

    Race(CommitOptions options) {
      this.options = options;
    }

    void startFirstAndHoldItsWrite() throws InterruptedException {
      first = committer("first", null);
      store.awaitInFlight(TestTiming.seconds(10));
    }

    void startSecond() {
      second = committer("second", secondDone);
    }

    /**
     * The late write lands once the second committer is done, or after {@code atMost} if it is
     * still waiting for the lock (as it must be while the first one's write is unsettled).
     */
    void landAfterSecondOrAfter(Duration atMost) throws Exception {
      try {
        secondDone.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
        // The lock was given up early. Let the first committer finish too (closing its committer
        // interrupts its writer thread, which must not race the late landing and stop it).
        first.join(TestTiming.seconds(30).toMillis());
      } catch (TimeoutException stillWaiting) {
        // expected when the lock is kept
      }
      store.land();
      store.awaitLanded(TestTiming.seconds(30));
      first.join(TestTiming.seconds(30).toMillis());
      second.join(TestTiming.seconds(30).toMillis());
      assertThat(first.isAlive() || second.isAlive()).as("both committers finished").isFalse();
    }

    void assertEveryAcknowledgedCommitIsInTheHistory() throws Exception {
      SnapshotLog log = new SnapshotLog(store, Path.of(dir.toString()));
      Map<Long, String> history = new java.util.TreeMap<>();
      for (long id : log.listIds()) {
        history.put(id, new String(log.read(id), UTF_8));
      }
      String report =
          "history " + history + ", acknowledged " + acknowledged + ", failed " + failed;
      assertThat(acknowledged).as(report).containsKey("second");
      for (Map.Entry<String, Long> ack : acknowledged.entrySet()) {
        assertThat(history.get(ack.getValue()))
            .as("acknowledged commit '%s' at snapshot %d; %s", ack.getKey(), ack.getValue(), report)
            .isNotNull()
            .contains("\"commitId\":\"" + ack.getKey() + "\"");
      }
      for (String commitId : List.of("first", "second")) {
        assertThat(
                history.values().stream()
                    .filter(content -> content.contains("\"commitId\":\"" + commitId + "\""))
                    .count())
            .as("'%s' is in the history at most once; %s", commitId, report)
            .isLessThanOrEqualTo(1);
      }
    }

    /** A committer that commits once, at the next free id, retrying there after each conflict. */
    private Thread committer(String commitId, CompletableFuture<Void> done) {
      Thread thread =
          new Thread(
              () -> {
                try (SnapshotCommitter committer =
                    SnapshotCommitter.builder(store, Path.of(dir.toString()), KEY)
                        .options(options)
                        .lockService(lock)
                        .build()) {
                  int attempt = 0;
                  while (true) {
                    long id = committer.log().latestId().orElse(0) + 1;
                    // Each attempt's bytes differ, as a rebased snapshot's would; the commit id
                    // does not.
                    byte[] bytes =
                        ("{\"commitId\":\"" + commitId + "\",\"attempt\":" + attempt++ + "}")
                            .getBytes(UTF_8);
                    if (committer.commit(id, SnapshotContent.of(bytes)).outcome()
                        == CommitOutcome.COMMITTED) {
                      acknowledged.put(commitId, id);
                      break;
                    }
                  }
                } catch (Throwable t) {
                  failed.put(commitId, t);
                } finally {
                  if (done != null) {
                    done.complete(null);
                  }
                }
              },
              "committer-" + commitId);
      started.add(thread);
      thread.start();
      return thread;
    }
  }
}
