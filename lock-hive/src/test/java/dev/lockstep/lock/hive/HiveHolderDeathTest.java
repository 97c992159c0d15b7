package dev.lockstep.lock.hive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.FaultInjectingFileIO;
import dev.lockstep.testing.FaultInjectingFileIO.Operation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A holder that stops talking to the metastore without unlocking (cut off by a partition, as a
 * holder that hangs or dies would be): the metastore times its lock out, the next holder gets it with
 * a larger fencing token, the cut-off holder's {@code ensureHeld()} fails, and its commit never lands.
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
      Lease taken = next.acquire("death.partitioned", limit).orElseThrow(() -> new AssertionError(
          "the cut-off holder's lock was not freed within " + limit));
      Duration freedAfter = Duration.ofNanos(System.nanoTime() - cut);

      // The moment another holder has the lock, the cut-off holder must already know.
      assertThatThrownBy(stale::ensureHeld).isInstanceOf(LockLostException.class)
          .hasMessageContaining("death.partitioned");
      assertThat(stale.isHeld()).isFalse();
      assertThat(stale.timeLeft()).isZero();
      // Its last heartbeat went out at most one heartbeat interval (a quarter) before the cut.
      assertThat(freedAfter).as("not freed before the metastore's lock timeout")
          .isGreaterThanOrEqualTo(TestMetastore.LOCK_TIMEOUT.multipliedBy(3).dividedBy(4)
              .minusMillis(200));
      assertThat(taken.fencingToken()).isGreaterThan(stale.fencingToken());

      // The cut-off holder comes back and closes its stale lease: the new holder keeps its lock.
      proxy.heal();
      stale.close();
      assertThatThrownBy(stale::ensureHeld).isInstanceOf(LockLostException.class);
      assertThat(metastore.locksOn("death", "partitioned")).singleElement()
          .satisfies(lock -> assertThat(lock.getLockid()).isEqualTo(taken.fencingToken()));
      taken.ensureHeld();
      taken.close();
    }
  }

  @Test
  void aCutOffHoldersCommitDoesNotLand(@TempDir Path root) throws Exception {
    dev.lockstep.fs.Path snapshots = dev.lockstep.fs.Path.of(root.resolve("snapshot").toString());
    FaultInjectingFileIO storeA =
        FaultInjectingFileIO.wrap(new CapabilityHidingFileIO(new LocalFileIO()));
    FileIO storeB = new CapabilityHidingFileIO(new LocalFileIO());
    byte[] contentA = "{\"commitId\":\"a\"}".getBytes(StandardCharsets.UTF_8);
    byte[] contentB = "{\"commitId\":\"b\"}".getBytes(StandardCharsets.UTF_8);
    AtomicReference<Object> outcomeB = new AtomicReference<>();
    CompletableFuture<Void> hookDone = new CompletableFuture<>();

    try (PartitionableProxy proxy = new PartitionableProxy(metastore.port());
        SnapshotCommitter a = SnapshotCommitter.open(storeA, snapshots, "death.commit",
            through(proxy));
        SnapshotCommitter b = SnapshotCommitter.open(storeB, snapshots, "death.commit",
            metastore.lockOptions())) {
      assertThat(a.strategy()).isEqualTo("lock (plain write)");
      storeA.beforeLanding(Operation.WRITE, (operation, path) -> {
        if (!path.name().equals("snapshot-1") || hookDone.isDone()) {
          return;
        }
        // Holder A checked its lease and is about to write snapshot-1: it is cut off (paused)
        // here, past its lease, while B commits snapshot-1. Then A's write goes on.
        proxy.partition();
        CompletableFuture<Void> commitB = CompletableFuture.runAsync(() -> {
          try {
            outcomeB.set(b.commit(1, contentB));
          } catch (Exception e) {
            outcomeB.set(e);
          }
        });
        while (!commitB.isDone()) {
          try {
            commitB.get(); // A's committer interrupts this writer when its lease runs out
          } catch (InterruptedException e) {
            // a paused holder does not notice; keep waiting for B
          } catch (Exception e) {
            break;
          }
        }
        hookDone.complete(null);
      });

      Object outcomeA;
      try {
        outcomeA = a.commit(1, contentA);
      } catch (Exception e) {
        outcomeA = e;
      }
      hookDone.get(60L * TestMetastore.TIMING, TimeUnit.SECONDS);
      TimeUnit.MILLISECONDS.sleep(500); // A's write, released by the hook, runs into B's file

      assertThat(outcomeB.get()).as("B's commit").isEqualTo(CommitOutcome.COMMITTED);
      assertThat(outcomeA).as("A's commit, cut off past its lease").isNotEqualTo(
          CommitOutcome.COMMITTED);
      SnapshotLog log = new SnapshotLog(storeB, snapshots);
      assertThat(new String(log.read(1), StandardCharsets.UTF_8))
          .isEqualTo(new String(contentB, StandardCharsets.UTF_8));
      assertThat(log.listIds()).containsExactly(1L);
      System.out.println("Cut-off committer ended with: " + outcomeA);
    }
  }
}
