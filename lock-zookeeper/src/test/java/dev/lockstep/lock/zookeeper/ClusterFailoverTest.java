package dev.lockstep.lock.zookeeper;

import static dev.lockstep.lock.zookeeper.ZooKeeperTesting.scaled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;

/** Mutual exclusion stays exact while the leader of a three-server ensemble is killed. */
class ClusterFailoverTest {

  private static final int CLIENTS = 8;
  private static final int INCREMENTS = 200;
  private static final int KILL_AFTER = 400;

  @Test
  void killingTheLeaderOfThreeServersDuringTheIncrementsKeepsMutualExclusionExact()
      throws Exception {
    MutualExclusionTest.UnsafeCounter counter = new MutualExclusionTest.UnsafeCounter();
    AtomicInteger done = new AtomicInteger();
    AtomicInteger failedAttempts = new AtomicInteger();
    List<ZooKeeperLockService> services = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    try (TestingCluster cluster = ZooKeeperTesting.startCluster(3)) {
      Map<String, String> options = ZooKeeperTesting.options(cluster.getConnectString());
      AtomicInteger reconnects = new AtomicInteger();
      for (int i = 0; i < CLIENTS; i++) {
        ZooKeeperLockService service = ZooKeeperTesting.ownProcessService(options);
        services.add(service);
        service
            .curator()
            .getConnectionStateListenable()
            .addListener(
                (client, state) -> {
                  if (state == ConnectionState.RECONNECTED) {
                    reconnects.incrementAndGet();
                  }
                });
      }
      CyclicBarrier start = new CyclicBarrier(CLIENTS + 1);
      List<Future<?>> runs = new ArrayList<>();
      for (ZooKeeperLockService service : services) {
        runs.add(
            pool.submit(
                () -> {
                  start.await();
                  int mine = 0;
                  while (mine < INCREMENTS) {
                    if (incrementOnce(service, counter, failedAttempts)) {
                      mine++;
                      done.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      start.await();
      awaitProgress(done, KILL_AFTER);
      InstanceSpec leader = leaderOf(cluster);
      assertThat(cluster.killServer(leader)).isTrue();
      int doneAtKill = done.get();

      for (Future<?> run : runs) {
        run.get(scaled(Duration.ofMinutes(3)).toMillis(), TimeUnit.MILLISECONDS);
      }
      assertThat(doneAtKill)
          .as("increments done when the leader died")
          .isLessThan(CLIENTS * INCREMENTS);
      assertThat(reconnects.get())
          .as("clients that lost their server and reconnected")
          .isPositive();
    } finally {
      pool.shutdownNow();
      for (ZooKeeperLockService service : services) {
        try {
          service.close();
        } catch (IOException e) {
          // The ensemble is gone; the sessions die with it.
        }
      }
    }
    assertThat(counter.maxInside.get()).as("holders inside at once").isEqualTo(1);
    assertThat(counter.value()).isEqualTo(CLIENTS * INCREMENTS);
    for (int i = 1; i < counter.tokensInOrder.size(); i++) {
      assertThat(counter.tokensInOrder.get(i))
          .as("fencing token of holder %d", i)
          .isGreaterThan(counter.tokensInOrder.get(i - 1));
    }
  }

  /**
   * One increment under the lock; false when the ensemble was unavailable or the lease was in doubt
   * (then nothing was incremented and the client tries again).
   */
  private static boolean incrementOnce(
      ZooKeeperLockService service,
      MutualExclusionTest.UnsafeCounter counter,
      AtomicInteger failedAttempts)
      throws InterruptedException {
    Optional<Lease> acquired;
    try {
      acquired = service.acquire("db.failover", scaled(Duration.ofSeconds(30)));
    } catch (IOException e) {
      failedAttempts.incrementAndGet();
      return false;
    }
    if (acquired.isEmpty()) {
      failedAttempts.incrementAndGet();
      return false;
    }
    Lease lease = acquired.get();
    try {
      counter.incrementUnder(lease);
      return true;
    } catch (LockLostException e) {
      failedAttempts.incrementAndGet();
      return false;
    } finally {
      try {
        lease.close();
      } catch (IOException e) {
        failedAttempts.incrementAndGet();
      }
    }
  }

  private static void awaitProgress(AtomicInteger done, int target) throws InterruptedException {
    long deadline = System.nanoTime() + scaled(Duration.ofMinutes(2)).toNanos();
    while (done.get() < target) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("Only " + done.get() + " increments before the deadline");
      }
      Thread.sleep(10);
    }
  }

  /** The server whose {@code srvr} command answers {@code Mode: leader}. */
  private static InstanceSpec leaderOf(TestingCluster cluster) throws IOException {
    for (InstanceSpec spec : cluster.getInstances()) {
      try (Socket socket = new Socket("127.0.0.1", spec.getPort())) {
        OutputStream out = socket.getOutputStream();
        out.write("srvr".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        if (answer.contains("Mode: leader")) {
          return spec;
        }
      }
    }
    throw new AssertionError("No server of " + cluster.getConnectString() + " is leading");
  }
}
