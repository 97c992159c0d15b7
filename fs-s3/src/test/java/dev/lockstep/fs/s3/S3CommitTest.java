package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.testing.CommitLoop;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Snapshot commits on S3 with no lock: If-None-Match: * alone keeps them exact. */
class S3CommitTest {

  private static S3ProxyServer server;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void autoChoosesAtomicCreateOnS3() throws IOException {
    Path root = server.freshRoot();
    try (FileIO store = server.open(root, Map.of());
        SnapshotCommitter committer =
            SnapshotCommitter.builder(store, root.child("snapshot"), "db.t")
                .options(Map.of())
                .open()) {
      assertThat(store).isInstanceOf(S3ConditionalFileIO.class);
      assertThat(committer.strategy()).isEqualTo("atomic-create");
    }
  }

  @Test
  void sixteenCommittersTimesFiftyCommitsGiveEightHundredSnapshotsWithoutALock() throws Exception {
    int committers = 16;
    int commits = 50;
    Path snapshots = server.freshRoot().child("snapshot");
    Set<String> committed = ConcurrentHashMap.newKeySet();
    CyclicBarrier barrier = new CyclicBarrier(committers);
    ExecutorService pool = Executors.newFixedThreadPool(committers);
    List<Future<?>> futures = new ArrayList<>();
    for (int c = 0; c < committers; c++) {
      String user = "user-" + c;
      futures.add(
          pool.submit(
              () -> {
                try (FileIO own = server.open(snapshots, Map.of());
                    SnapshotCommitter committer =
                        SnapshotCommitter.builder(own, snapshots, "db.t")
                            .options(Map.of("commit.strategy", "auto"))
                            .open()) {
                  assertThat(committer.strategy()).isEqualTo("atomic-create");
                  barrier.await();
                  for (int i = 0; i < commits; i++) {
                    assertThat(committed.add(CommitLoop.commitOnce(committer, user, i))).isTrue();
                  }
                }
                return null;
              }));
    }
    try {
      for (Future<?> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertExact(server, snapshots, committed, committers * commits);
  }

  static void assertExact(S3ProxyServer server, Path snapshots, Set<String> committed, int expected)
      throws Exception {
    try (FileIO store = server.open(snapshots, Map.of())) {
      CommitLoop.assertEachCommitOnce(store, snapshots, committed, expected);
    }
  }
}
