package dev.lockstep.lock.hive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.conformance.BlindPutStore;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A holder that stops talking to the metastore without unlocking (cut off by a partition, as a
 * holder that hangs or dies would be): the metastore times its lock out, the next holder gets it
 * with a larger fencing token, the cut-off holder's {@code ensureHeld()} fails, and its commit
 * never lands.
 */
class HiveHolderDeathTest {

  private static final Duration TOLERANCE = Duration.ofSeconds(3L * TestMetastore.TIMING);

  private static TestMetastore metastore;

  @BeforeAll
  static void startMetastore() throws Exception {
    metastore = TestMetastore.shared();
  }

  private static Map<String, String> through(PartitionableProxy proxy) {
    Map<String, String> options = new HashMap<>(metastore.lockOptions());
    options.put("uri", proxy.uri());
    return options;
  }

  @Test
  void aCutOffHoldersLockIsFreedAndItKnowsItLostIt() throws Exception {
    try (PartitionableProxy proxy = new PartitionableProxy(metastore.port());
        LockService cutOff = LockServiceDiscovery.open(through(proxy));
        LockService next = LockServiceDiscovery.open(metastore.lockOptions())) {
      Lease stale = cutOff.acquire("death.partitioned", Duration.ofSeconds(5)).orElseThrow();
      assertThat(next.acquire("death.partitioned", Duration.ZERO)).isEmpty();

      proxy.partition();
      long cut = System.nanoTime();
      Duration limit = next.holderDeathBound().plus(TOLERANCE);
      Lease taken =
          next.acquire("death.partitioned", limit)
              .orElseThrow(
                  () ->
                      new AssertionError(
                          "the cut-off holder's lock was not freed within " + limit));
      Duration freedAfter = Duration.ofNanos(System.nanoTime() - cut);

      // The moment another holder has the lock, the cut-off holder must already know.
      assertThatThrownBy(stale::ensureHeld)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("death.partitioned");
      assertThat(stale.isHeld()).isFalse();
      assertThat(stale.timeLeft()).isZero();
      // Its last heartbeat went out at most one heartbeat interval (a quarter) before the cut.
      assertThat(freedAfter)
          .as("not freed before the metastore's lock timeout")
          .isGreaterThanOrEqualTo(
              TestMetastore.LOCK_TIMEOUT.multipliedBy(3).dividedBy(4).minusMillis(200));
      assertThat(taken.fencingToken()).isGreaterThan(stale.fencingToken());

      // The cut-off holder comes back and closes its stale lease: the new holder keeps its lock.
      proxy.heal();
      stale.close();
      assertThatThrownBy(stale::ensureHeld).isInstanceOf(LockLostException.class);
      assertThat(metastore.locksOn("death", "partitioned"))
          .singleElement()
          .satisfies(lock -> assertThat(lock.getLockid()).isEqualTo(taken.fencingToken()));
      taken.ensureHeld();
      taken.close();
    }
  }

  /**
   * Over blind puts (an object store without conditional writes) the store cannot refuse the
   * cut-off holder's write, so only the lock's fencing keeps it from replacing the next holder's
   * snapshot: A acquires, sees snapshot-1 absent, and is cut off right then (its answer is the one
   * from before the pause) while B takes the timed-out lock and commits snapshot-1. When A goes on,
   * its lease is gone: it must write nothing and learn CONFLICT. A's store is a bare PUT (no
   * existence check of its own, see {@link BlindPutStore#bare}), so with the fencing checks of the
   * lock strategy switched off, A's write replaces B's snapshot and this test fails.
   */
  @Test
  void aCutOffHoldersCommitDoesNotLand(@TempDir Path root) throws Exception {
    dev.lockstep.fs.Path snapshots = dev.lockstep.fs.Path.of(root.resolve("snapshot").toString());
    FileIO storeB = new BlindPutStore(new LocalFileIO());
    byte[] contentA = "{\"commitId\":\"a\"}".getBytes(StandardCharsets.UTF_8);
    byte[] contentB = "{\"commitId\":\"b\"}".getBytes(StandardCharsets.UTF_8);
    AtomicReference<Object> outcomeB = new AtomicReference<>();

    try (PartitionableProxy proxy = new PartitionableProxy(metastore.port());
        SnapshotCommitter b =
            SnapshotCommitter.builder(storeB, snapshots, "death.commit")
                .options(metastore.lockOptions())
                .open()) {
      PausingBlindPutStore storeA =
          new PausingBlindPutStore(
              new LocalFileIO(),
              () -> {
                proxy.partition();
                CompletableFuture<Void> commitB =
                    CompletableFuture.runAsync(
                        () -> {
                          try {
                            outcomeB.set(b.commit(1, SnapshotContent.of(contentB)).outcome());
                          } catch (Exception e) {
                            outcomeB.set(e);
                          }
                        });
                commitB.get(60L * TestMetastore.TIMING, TimeUnit.SECONDS);
              });
      try (SnapshotCommitter a =
          SnapshotCommitter.builder(storeA, snapshots, "death.commit")
              .options(through(proxy))
              .open()) {
        assertThat(a.strategy()).isEqualTo("lock (plain write)");

        Object outcomeA;
        try {
          outcomeA = a.commit(1, SnapshotContent.of(contentA)).outcome();
        } catch (Exception e) {
          outcomeA = e; // failing is fine; landing is not
        }
        System.out.println("Cut-off committer ended with: " + outcomeA);

        assertThat(storeA.paused).as("A was cut off after its existence check").isTrue();
        assertThat(outcomeB.get()).as("B's commit").isEqualTo(CommitOutcome.COMMITTED);
        assertThat(storeA.snapshotWrites.get())
            .as("snapshot writes by the cut-off holder A")
            .isZero();
        assertThat(outcomeA)
            .as("A's commit, cut off past its lease")
            .isEqualTo(CommitOutcome.CONFLICT);
        SnapshotLog log = new SnapshotLog(storeB, snapshots);
        assertThat(new String(log.read(1), StandardCharsets.UTF_8))
            .isEqualTo(new String(contentB, StandardCharsets.UTF_8));
        assertThat(log.listIds()).containsExactly(1L);
      }
    }
  }

  /** The pause run once, right after the first existence check of a snapshot. */
  @FunctionalInterface
  interface Pause {
    void run() throws Exception;
  }

  /**
   * A bare blind-put store (every write replaces) that pauses its caller once, right after the
   * first existence check of a snapshot, and then answers as the store did before the pause: a
   * holder cut off between "the snapshot is absent" and its write. Counts snapshot writes.
   */
  static final class PausingBlindPutStore extends BlindPutStore {
    private final Pause pause;
    final AtomicLong snapshotWrites = new AtomicLong();
    volatile boolean paused;

    PausingBlindPutStore(FileIO delegate, Pause pause) {
      super(delegate, false);
      this.pause = pause;
    }

    @Override
    public OutputStream newOutputStream(dev.lockstep.fs.Path path, boolean overwrite)
        throws IOException {
      if (path.name().startsWith("snapshot-")) {
        snapshotWrites.incrementAndGet();
      }
      return super.newOutputStream(path, overwrite);
    }

    @Override
    public boolean exists(dev.lockstep.fs.Path path) throws IOException {
      boolean answer = super.exists(path);
      if (!paused && path.name().startsWith("snapshot-")) {
        paused = true;
        try {
          pause.run();
        } catch (Exception e) {
          throw new AssertionError("The pause failed", e);
        }
      }
      return answer;
    }
  }
}
