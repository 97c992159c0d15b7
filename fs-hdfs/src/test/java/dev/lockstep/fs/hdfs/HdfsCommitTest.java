package dev.lockstep.fs.hdfs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Snapshot commits on HDFS with no lock: the rename strategy alone keeps them exact. */
class HdfsCommitTest {

  private static MiniHdfs hdfs;
  private static FileIO store;

  @BeforeAll
  static void start() throws IOException {
    hdfs = MiniHdfs.shared();
    store = hdfs.open();
  }

  @AfterAll
  static void stop() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  @Test
  void autoChoosesRenameOnHdfs() throws IOException {
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(store, hdfs.root("t0/snapshot"), "db.t0")
            .options(Map.of())
            .open()) {
      assertThat(committer.strategy()).isEqualTo("rename");
    }
  }

  @Test
  void sixteenCommittersTimesFiftyCommitsGiveEightHundredSnapshots() throws Exception {
    Set<String> committed = run("t1", 16, 50, null);
    assertExact("t1", committed, 800);
  }

  @Test
  void aNameNodeRestartInTheMiddleLosesAndDoublesNothing() throws Exception {
    AtomicBoolean restarted = new AtomicBoolean();
    Set<String> committed = run("t2", 8, 40, restarted);
    assertThat(restarted).isTrue();
    assertExact("t2", committed, 320);
  }

  /**
   * Runs {@code committers} threads of {@code commits} commits each, started on a barrier. With
   * {@code restart} set, the NameNode is restarted once a third of the commits are in.
   */
  private Set<String> run(String table, int committers, int commits, AtomicBoolean restart)
      throws Exception {
    Path snapshots = hdfs.root(table + "/snapshot");
    Set<String> committed = ConcurrentHashMap.newKeySet();
    CyclicBarrier barrier = new CyclicBarrier(committers);
    ExecutorService pool = Executors.newFixedThreadPool(committers);
    List<Future<?>> futures = new ArrayList<>();
    for (int c = 0; c < committers; c++) {
      String user = "user-" + c;
      futures.add(
          pool.submit(
              () -> {
                try (FileIO own = hdfs.open();
                    SnapshotCommitter committer =
                        SnapshotCommitter.builder(own, snapshots, "db." + table)
                            .options(hdfs.options())
                            .open()) {
                  barrier.await();
                  for (int i = 0; i < commits; i++) {
                    String id = CommitLoop.commitThroughFailures(committer, user, i);
                    assertThat(committed.add(id)).isTrue();
                    if (restart != null
                        && committed.size() >= committers * commits / 3
                        && restart.compareAndSet(false, true)) {
                      hdfs.restartNameNode();
                    }
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
    return committed;
  }

  private void assertExact(String table, Set<String> committed, int expected) throws IOException {
    CommitLoop.assertEachCommitOnce(store, hdfs.root(table + "/snapshot"), committed, expected);
  }
}
