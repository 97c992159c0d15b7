package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

/**
 * K committers, each with its own store client and committer, start on a barrier and make C commits
 * each, the way a table writer does:
 *
 * <ol>
 *   <li>Read the latest snapshot id L and commit a snapshot carrying a fresh commit id at L+1.
 *   <li>CONFLICT: someone else took L+1; go to 1.
 *   <li>A failure that published nothing: go to 1.
 *   <li>{@link CommitStateUnknownException}: reload the table and look for the commit id (what the
 *       engine's commit-identifier check does); found means committed, otherwise go to 1.
 * </ol>
 *
 * Then it checks: exactly K*C snapshots, ids 1..K*C with no gap, every commit id exactly once, and
 * each committer's COMMITTED answer names the snapshot that really holds its commit id.
 */
final class CommitStress {

  /** Opens committer {@code k}'s committer (over its own store client). */
  @FunctionalInterface
  interface CommitterFactory {
    SnapshotCommitter open(int k) throws IOException;
  }

  private final int committers;
  private final int commitsEach;
  private final Duration timeout;

  CommitStress(int committers, int commitsEach, Duration timeout) {
    this.committers = committers;
    this.commitsEach = commitsEach;
    this.timeout = timeout;
  }

  /**
   * Runs the stress and asserts the invariants.
   *
   * @param checker a store client without faults, used to reload and to verify
   */
  void runAndVerify(String label, CommitterFactory factory, FileIO checker, Path snapshotDirectory)
      throws Exception {
    Map<String, Long> claimed = new ConcurrentHashMap<>();
    SnapshotLog truth = new SnapshotLog(checker, snapshotDirectory);
    CyclicBarrier barrier = new CyclicBarrier(committers);
    ExecutorService threads =
        Executors.newFixedThreadPool(
            committers,
            r -> {
              Thread thread = new Thread(r, "conformance-committer");
              thread.setDaemon(true);
              return thread;
            });
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Future<Void>> futures = new ArrayList<>();
    try {
      for (int k = 0; k < committers; k++) {
        int committer = k;
        futures.add(
            threads.submit(
                () -> {
                  try (SnapshotCommitter c = factory.open(committer)) {
                    barrier.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    for (int seq = 0; seq < commitsEach; seq++) {
                      String commitId = "commit-" + committer + "-" + seq + "-" + UUID.randomUUID();
                      claimed.put(commitId, commitOne(c, truth, commitId, deadline));
                    }
                  }
                  return null;
                }));
      }
      for (Future<Void> f : futures) {
        f.get(
            Math.max(1, deadline - System.nanoTime()) + TimeUnit.SECONDS.toNanos(5),
            TimeUnit.NANOSECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    verify(label, claimed, truth, checker, snapshotDirectory);
  }

  private long commitOne(
      SnapshotCommitter committer, SnapshotLog truth, String commitId, long deadline)
      throws IOException, InterruptedException {
    byte[] content = ("{\"commitId\":\"" + commitId + "\"}\n").getBytes(StandardCharsets.UTF_8);
    IOException last = null;
    while (System.nanoTime() < deadline) {
      long id;
      try {
        id = committer.log().latestId().orElse(0) + 1;
      } catch (IOException e) {
        last = e;
        continue;
      }
      try {
        if (committer.commit(id, SnapshotContent.of(content)).outcome()
            == CommitOutcome.COMMITTED) {
          return id;
        }
      } catch (CommitStateUnknownException e) {
        last = e;
        Optional<Long> found = find(truth, commitId);
        if (found.isPresent()) {
          return found.get();
        }
      } catch (IOException e) {
        last = e;
      }
    }
    throw new AssertionError(
        "Commit "
            + commitId
            + " did not finish before the deadline ("
            + timeout.toSeconds()
            + " s, scaled by "
            + ConformanceSettings.TIME_FACTOR
            + ")",
        last);
  }

  private static Optional<Long> find(SnapshotLog truth, String commitId) throws IOException {
    for (long id : truth.listIds()) {
      if (new String(truth.read(id), StandardCharsets.UTF_8).contains("\"" + commitId + "\"")) {
        return Optional.of(id);
      }
    }
    return Optional.empty();
  }

  private void verify(
      String label, Map<String, Long> claimed, SnapshotLog truth, FileIO checker, Path dir)
      throws IOException {
    int expected = committers * commitsEach;
    List<Long> ids = truth.listIds();
    String listing = ConformanceContract.listing(checker, dir);
    assertThat(ids)
        .as(
            "%s: %d committers x %d commits must give snapshots 1..%d, contiguous; %s",
            label, committers, commitsEach, expected, listing)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, expected).boxed().toList());
    Map<String, Long> holder = new HashMap<>();
    for (long id : ids) {
      String text = new String(truth.read(id), StandardCharsets.UTF_8);
      String commitId = text.replaceAll("(?s).*\"commitId\":\"([^\"]+)\".*", "$1");
      Long previous = holder.put(commitId, id);
      assertThat(previous)
          .as(
              "%s: commit %s is in snapshot %s and in snapshot %d (committed twice)",
              label, commitId, previous, id)
          .isNull();
    }
    assertThat(holder.keySet())
        .as("%s: every commit exactly once", label)
        .containsExactlyInAnyOrderElementsOf(claimed.keySet());
    claimed.forEach(
        (commitId, id) ->
            assertThat(holder.get(commitId))
                .as("%s: %s was reported committed as snapshot %d", label, commitId, id)
                .isEqualTo(id));
  }
}
