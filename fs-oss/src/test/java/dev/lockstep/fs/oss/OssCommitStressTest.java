package dev.lockstep.fs.oss;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.oss.testing.OssTestServer;
import dev.lockstep.testing.TestTiming;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * 16 committers, each with its own store client (as separate processes would have), commit 50
 * snapshots each to one table through {@link SnapshotCommitter} with {@code commit.strategy=auto}
 * and no lock: every commit lands exactly once, as one of 800 consecutive snapshots.
 */
class OssCommitStressTest {

  private static final int COMMITTERS = 16;
  private static final int COMMITS_EACH = 50;

  private OssTestServer server;

  @BeforeEach
  void start() throws Exception {
    server = OssTestServer.start().createBucket(OssTargets.BUCKET);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void sixteenCommittersTimesFiftyCommitsGiveEightHundredSnapshotsEachCommitOnce()
      throws Exception {
    Path snapshots = Path.of("oss://" + OssTargets.BUCKET + "/warehouse/db.db/t/snapshot");
    Map<String, String> options = OssTargets.options(server);
    options.put("commit.strategy", "auto");
    Set<String> committed = ConcurrentHashMap.newKeySet();
    CyclicBarrier start = new CyclicBarrier(COMMITTERS);
    ExecutorService pool = Executors.newFixedThreadPool(COMMITTERS);
    List<Future<Integer>> results = new ArrayList<>();
    try {
      for (int c = 0; c < COMMITTERS; c++) {
        int committer = c;
        results.add(
            pool.submit(
                () -> {
                  try (FileIO store = new OssFileIOLoader().load(snapshots, options);
                      SnapshotCommitter commits =
                          SnapshotCommitter.builder(store, snapshots, "db.t")
                              .options(options)
                              .open()) {
                    assertThat(commits.strategy()).isEqualTo("atomic-create");
                    SnapshotLog log = commits.log();
                    int conflicts = 0;
                    start.await();
                    for (int i = 0; i < COMMITS_EACH; i++) {
                      String commitId =
                          "committer-" + committer + "/commit-" + i + "/" + UUID.randomUUID();
                      byte[] content =
                          ("{\"commitId\":\"" + commitId + "\"}").getBytes(StandardCharsets.UTF_8);
                      while (true) {
                        OptionalLong latest = log.latestId();
                        long next = latest.isPresent() ? latest.getAsLong() + 1 : 1;
                        if (commits.commit(next, SnapshotContent.of(content)).outcome()
                            == CommitOutcome.COMMITTED) {
                          assertThat(committed.add(commitId))
                              .as("commit id reported twice")
                              .isTrue();
                          break;
                        }
                        conflicts++;
                      }
                    }
                    return conflicts;
                  }
                }));
      }
      for (Future<Integer> result : results) {
        result.get(TestTiming.seconds(180).toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    System.out.printf(
        "PutObject %d, HeadObject %d, GetObject %d, ListObjectsV2 %d%n",
        server.requestCount("PutObject"),
        server.requestCount("HeadObject"),
        server.requestCount("GetObject"),
        server.requestCount("ListObjectsV2"));
    try (FileIO store = new OssFileIOLoader().load(snapshots, options)) {
      SnapshotLog log = new SnapshotLog(store, snapshots);
      List<Long> ids = log.listIds();
      List<Long> expected = new ArrayList<>();
      for (long id = 1; id <= COMMITTERS * COMMITS_EACH; id++) {
        expected.add(id);
      }
      assertThat(ids)
          .as("snapshot ids; the bucket holds %s", server.keys(OssTargets.BUCKET))
          .isEqualTo(expected);
      Set<String> inSnapshots = new HashSet<>();
      for (long id : ids) {
        String json = new String(log.read(id), StandardCharsets.UTF_8);
        String commitId = json.substring("{\"commitId\":\"".length(), json.length() - 2);
        assertThat(inSnapshots.add(commitId))
            .as("commit %s appears in two snapshots", commitId)
            .isTrue();
      }
      assertThat(inSnapshots)
          .as("the snapshots hold exactly the commits reported COMMITTED")
          .isEqualTo(committed)
          .hasSize(COMMITTERS * COMMITS_EACH);
    }
  }
}
