package dev.lockstep.bench.jmh;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One snapshot commit through {@link SnapshotCommitter} on the local store, per strategy: the time
 * to turn "snapshot N is this content" into COMMITTED, one committer, no contention. Every
 * invocation commits the next snapshot id with fresh content carrying a unique commit id, as the
 * engine does.
 *
 * <ul>
 *   <li>{@code atomic-create}: temp file + {@code link(2)} (no lock).
 *   <li>{@code rename}: temp file + rename that refuses to replace (link + unlink).
 *   <li>{@code lock+in-jvm}: under lock-api's in-JVM test lock (the lock's own cost is near zero,
 *       so this shows the locked protocol's overhead: ensureHeld twice, existence check, bounded
 *       write).
 *   <li>{@code lock+zookeeper}: under the ZooKeeper lock on an in-process curator-test server.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SnapshotCommitBenchmark {

  @Param({"atomic-create", "rename", "lock+in-jvm", "lock+zookeeper"})
  public String strategy;

  private Path directory;
  private LocalFileIO store;
  private TestingServer zookeeper;
  private LockService lockService;
  private SnapshotCommitter committer;
  private long nextId;

  @Setup(Level.Trial)
  public void open() throws Exception {
    directory = ScratchDirectory.create("lockstep-jmh-commit-");
    store = new LocalFileIO();
    Map<String, String> options = new HashMap<>();
    switch (strategy) {
      case "atomic-create":
      case "rename":
        options.put(CommitOptions.COMMIT_STRATEGY, strategy);
        break;
      case "lock+in-jvm":
        options.put(CommitOptions.COMMIT_STRATEGY, "lock");
        lockService = new InJvmLockService();
        break;
      case "lock+zookeeper":
        options.put(CommitOptions.COMMIT_STRATEGY, "lock");
        zookeeper = new TestingServer(true);
        lockService =
            LockServiceDiscovery.open(
                Map.of(
                    LockOptions.LOCK_ENABLED,
                    "true",
                    LockOptions.LOCK_TYPE,
                    "zookeeper",
                    "lock.zookeeper.connect-string",
                    zookeeper.getConnectString()));
        break;
      default:
        throw new IllegalArgumentException(
            "Unknown strategy '"
                + strategy
                + "'; known:"
                + " atomic-create, rename, lock+in-jvm, lock+zookeeper");
    }
    committer =
        SnapshotCommitter.builder(
                store, dev.lockstep.fs.Path.of(directory.resolve("snapshot").toString()), "bench.t")
            .options(CommitOptions.from(options))
            .lockService(lockService)
            .build();
  }

  @Benchmark
  public CommitOutcome commit() throws IOException, InterruptedException {
    long id = ++nextId;
    byte[] content =
        ("{\"id\":"
                + id
                + ",\"commitId\":\""
                + UUID.randomUUID()
                + "\",\"commitUser\":\"jmh\",\"commitIdentifier\":"
                + id
                + "}")
            .getBytes(StandardCharsets.UTF_8);
    CommitOutcome outcome = committer.commit(id, SnapshotContent.of(content)).outcome();
    if (outcome != CommitOutcome.COMMITTED) {
      throw new IllegalStateException(
          "Snapshot "
              + id
              + " was not committed: "
              + outcome
              + " (a single committer must never conflict)");
    }
    return outcome;
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    committer.close();
    if (lockService != null) {
      lockService.close();
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
    store.close();
    ScratchDirectory.delete(directory);
  }
}
