package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test helper: writers that start together on a barrier and each commit a number of snapshots,
 * retrying at the next id on conflict; then the invariants every such race must keep.
 */
final class ConcurrentCommits {

  private static final Pattern COMMIT_ID = Pattern.compile("\"commitId\":\"([^\"]+)\"");

  /** commit id → the snapshot id its writer was told it won. */
  final Map<String, Long> wonByCommitId = new ConcurrentHashMap<>();

  /**
   * Runs {@code writers} threads, each committing {@code commits} snapshots through its own
   * committer. A commit that fails with a plain {@link IOException} (nothing published) is retried.
   */
  void run(int writers, int commits, IntFunction<SnapshotCommitter> committerOf) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CyclicBarrier start = new CyclicBarrier(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        SnapshotCommitter committer = committerOf.apply(w);
        done.add(
            pool.submit(
                () -> {
                  start.await(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
                  for (int c = 0; c < commits; c++) {
                    String commitId = UUID.randomUUID().toString();
                    while (true) {
                      long id = committer.log().latestId().orElse(0) + 1;
                      byte[] content =
                          ("{\"id\":" + id + ",\"commitId\":\"" + commitId + "\"}").getBytes(UTF_8);
                      CommitOutcome outcome;
                      try {
                        outcome = committer.commit(id, SnapshotContent.of(content)).outcome();
                      } catch (CommitStateUnknownException e) {
                        throw e;
                      } catch (IOException e) {
                        continue; // nothing was published: try again
                      }
                      if (outcome == CommitOutcome.COMMITTED) {
                        Long previous = wonByCommitId.put(commitId, id);
                        assertThat(previous)
                            .as("commit %s reported COMMITTED twice", commitId)
                            .isNull();
                        break;
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(TestTiming.seconds(120).toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Snapshots are exactly 1..total; each holds the commit id of the one writer told it won that id;
   * every commit id appears exactly once.
   */
  void assertInvariants(SnapshotLog log, int total) throws IOException {
    List<Long> ids = log.listIds();
    assertThat(ids).as("snapshot ids in %s", log.directory()).hasSize(total);
    for (int i = 0; i < total; i++) {
      assertThat(ids.get(i)).as("contiguous ids").isEqualTo(i + 1L);
    }
    Map<String, Long> onDisk = new HashMap<>();
    for (long id : ids) {
      Matcher m = COMMIT_ID.matcher(new String(log.read(id), UTF_8));
      assertThat(m.find()).as("snapshot-%d is whole", id).isTrue();
      Long previous = onDisk.put(m.group(1), id);
      assertThat(previous)
          .as("commit id %s in snapshots %s and %s", m.group(1), previous, id)
          .isNull();
    }
    assertThat(onDisk).as("what writers were told equals what is on disk").isEqualTo(wonByCommitId);
  }
}
