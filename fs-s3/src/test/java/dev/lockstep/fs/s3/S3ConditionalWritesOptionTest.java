package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitStrategyUnavailableException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.testing.CommitLoop;
import dev.lockstep.testing.InJvmLockService;
import java.util.ArrayList;
import java.util.HashMap;
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

/**
 * {@code s3.conditional-writes}: what each value makes of the store, and what commits then need.
 */
class S3ConditionalWritesOptionTest {

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
  void trueAndAutoOnAStoreThatHonoursTheHeaderGiveAtomicCreate() throws Exception {
    for (String value : List.of("true", "auto")) {
      try (FileIO store =
          server.open(server.freshRoot(), Map.of(S3Options.CONDITIONAL_WRITES, value))) {
        assertThat(store).as(value).isInstanceOf(SupportsAtomicCreate.class);
      }
    }
  }

  @Test
  void falseDeclaresNoAtomicCreateAndACommitWithoutALockIsRefusedWithTheFix() throws Exception {
    Path root = server.freshRoot();
    try (FileIO store = server.open(root, Map.of(S3Options.CONDITIONAL_WRITES, "false"))) {
      assertThat(store).isNotInstanceOf(SupportsAtomicCreate.class);
      assertThatThrownBy(
              () ->
                  SnapshotCommitter.builder(store, root.child("snapshot"), "db.t")
                      .options(Map.of())
                      .open())
          .isInstanceOf(CommitStrategyUnavailableException.class)
          .hasMessageContaining("lock.enabled=true")
          .hasMessageContaining("lock.type");
      assertThatThrownBy(
              () ->
                  SnapshotCommitter.builder(store, root.child("snapshot"), "db.t")
                      .options(Map.of("commit.strategy", "atomic-create"))
                      .open())
          .isInstanceOf(CommitStrategyUnavailableException.class);
      assertThat(store.list(root)).as("nothing was written").isEmpty();
    }
  }

  @Test
  void falseWithALockCommitsExactly() throws Exception {
    commitUnderLock("false", "lock (plain write)");
  }

  @Test
  void trueWithALockUsesTheConditionalWriteInsideTheLock() throws Exception {
    commitUnderLock("true", "lock + atomic-create");
  }

  private void commitUnderLock(String conditionalWrites, String strategy) throws Exception {
    int committers = 4;
    int commits = 6;
    Path snapshots = server.freshRoot().child("snapshot");
    CommitOptions options = CommitOptions.from(Map.of("lock.enabled", "true"));
    Set<String> committed = ConcurrentHashMap.newKeySet();
    CyclicBarrier barrier = new CyclicBarrier(committers);
    ExecutorService pool = Executors.newFixedThreadPool(committers);
    List<Future<?>> futures = new ArrayList<>();
    try (InJvmLockService locks = new InJvmLockService()) {
      for (int c = 0; c < committers; c++) {
        String user = "user-" + c;
        futures.add(
            pool.submit(
                () -> {
                  try (FileIO own =
                          server.open(
                              snapshots, Map.of(S3Options.CONDITIONAL_WRITES, conditionalWrites));
                      SnapshotCommitter committer =
                          SnapshotCommitter.builder(own, snapshots, "db.t")
                              .options(options)
                              .lockService(locks)
                              .build()) {
                    assertThat(committer.strategy()).isEqualTo(strategy);
                    barrier.await();
                    for (int i = 0; i < commits; i++) {
                      assertThat(committed.add(CommitLoop.commitOnce(committer, user, i))).isTrue();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
      assertThat(locks.grantedLeases())
          .as("every commit went through the lock")
          .isGreaterThanOrEqualTo(committers * commits);
    } finally {
      pool.shutdownNow();
    }
    S3CommitTest.assertExact(server, snapshots, committed, committers * commits);
  }

  @Test
  void autoTurnsConditionalWritesOffOnAStoreThatIgnoresTheHeader() throws Exception {
    try (S3ProxyServer open = S3ProxyServer.startWithoutAuthentication();
        LostAnswerProxy ignoring = new LostAnswerProxy(open.port())) {
      ignoring.arm(LostAnswerProxy.Fault.STRIP_CONDITION, head -> true, Integer.MAX_VALUE, null);
      Map<String, String> options = new HashMap<>(S3ProxyServer.options(ignoring.endpoint()));
      Path root = open.freshRoot();
      try (FileIO store = FileIODiscovery.open(root, options)) {
        assertThat(store).isNotInstanceOf(SupportsAtomicCreate.class);
        assertThatThrownBy(
                () ->
                    SnapshotCommitter.builder(store, root.child("snapshot"), "db.t")
                        .options(Map.of())
                        .open())
            .isInstanceOf(CommitStrategyUnavailableException.class);
        assertThat(store.list(root)).as("the probe object was deleted").isEmpty();
      }
      options.put(S3Options.CONDITIONAL_WRITES, "true");
      try (FileIO store = FileIODiscovery.open(root, options)) {
        assertThat(store)
            .as("true is the operator's word")
            .isInstanceOf(SupportsAtomicCreate.class);
      }
    }
  }
}
