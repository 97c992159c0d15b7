package dev.lockstep.lock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.FencedCommitException;
import dev.lockstep.commit.FencingToken;
import dev.lockstep.commit.FencingTokenReader;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.conformance.BlindPutStore;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import dev.lockstep.testing.PausingLockService;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ZooKeeper leases' fencing tokens (creation zxids) land in the snapshots that lock-api's {@code
 * lock} strategy commits, increase across holders (also when the key node is deleted and its
 * sequence restarts), and refuse a holder whose session expired and was taken over. Real server
 * (curator-test), each holder its own Curator client as in separate processes; the store is a bare
 * blind PUT, so that only the lock keeps holders apart.
 */
class FencingTokenSnapshotTest {

  private static final String KEY = "db.fenced";
  private static TestingServer server;

  @TempDir java.nio.file.Path dir;
  private final FileIO store = BlindPutStore.bare(new LocalFileIO());

  @BeforeAll
  static void start() throws Exception {
    server = ZooKeeperTesting.startServer();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  /** Test snapshot format: commit id, then the lock and token ("-" for none), one per line. */
  private static SnapshotContent content(String commitId) {
    return fencing ->
        (commitId + "\n" + fencing.map(f -> f.lock() + "\n" + f.token()).orElse("-\n-"))
            .getBytes(StandardCharsets.UTF_8);
  }

  private static final FencingTokenReader READER =
      bytes -> {
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
        return lines[1].equals("-")
            ? Optional.empty()
            : Optional.of(new FencingToken(lines[1], Long.parseLong(lines[2])));
      };

  private static Map<String, String> options() {
    Map<String, String> options =
        new HashMap<>(ZooKeeperTesting.options(server.getConnectString()));
    options.put(LockOptions.LOCK_ENABLED, "true");
    return options;
  }

  private SnapshotCommitter committer(LockService service) {
    return SnapshotCommitter.builder(store, Path.of(dir.toString()), KEY)
        .options(CommitOptions.from(options()))
        .lockService(service)
        .fencing(READER)
        .build();
  }

  @Test
  void tokensIncreaseAcrossHoldersAndLandInTheSnapshots() throws Exception {
    try (ZooKeeperLockService first = ZooKeeperTesting.ownProcessService(options());
        ZooKeeperLockService second = ZooKeeperTesting.ownProcessService(options())) {
      SnapshotCommitter a = committer(first);
      SnapshotCommitter b = committer(second);
      String keyPath = ZKPaths.makePath(first.options().basePath(), KEY);
      for (long id = 1; id <= 6; id++) {
        SnapshotCommitter holder = id % 2 == 1 ? a : b;
        assertThat(holder.commit(id, content("c" + id)).outcome())
            .isEqualTo(CommitOutcome.COMMITTED);
        if (id == 3) {
          // What ZooKeeper's container manager does to the empty key node: its sequence restarts.
          try {
            first.curator().delete().forPath(keyPath);
          } catch (KeeperException.NoNodeException alreadyGone) {
            // the server removed it first
          }
        }
      }

      SnapshotLog log = a.log();
      long previous = Long.MIN_VALUE;
      for (long id = 1; id <= 6; id++) {
        FencingToken token = READER.read(log.read(id)).orElseThrow();
        assertThat(token.lock()).isEqualTo("zookeeper:" + KEY);
        assertThat(token.token()).as("token of snapshot %d", id).isGreaterThan(previous);
        previous = token.token();
      }
      a.close();
      b.close();
    }
  }

  @Test
  void aHolderWhoseSessionExpiredAndWasTakenOverIsRefused() throws Exception {
    try (ZooKeeperLockService first = ZooKeeperTesting.ownProcessService(options());
        ZooKeeperLockService second = ZooKeeperTesting.ownProcessService(options())) {
      PausingLockService pausing = new PausingLockService(first);
      SnapshotCommitter stale = committer(pausing);
      SnapshotCommitter newer = committer(second);
      AtomicReference<CommitOutcome> newerOutcome = new AtomicReference<>();
      // The holder pauses right after its last lease check; its session expires on the server and
      // the other client takes the lock (the expired session's node is gone) and commits snapshot
      // 1.
      pausing.pauseAfterCheck(
          2,
          lease -> {
            ZooKeeperTesting.expireSession(server.getConnectString(), first.curator());
            newerOutcome.set(newer.commit(1, content("newer")).outcome());
          });

      assertThatThrownBy(() -> stale.commit(1, content("stale")))
          .isInstanceOf(FencedCommitException.class)
          .satisfies(
              e ->
                  assertThat(((FencedCommitException) e).newer().lock())
                      .isEqualTo("zookeeper:" + KEY));

      assertThat(newerOutcome.get()).isEqualTo(CommitOutcome.COMMITTED);
      assertThat(new String(stale.log().read(1), StandardCharsets.UTF_8)).startsWith("newer\n");
      stale.close();
      newer.close();
    }
  }
}
