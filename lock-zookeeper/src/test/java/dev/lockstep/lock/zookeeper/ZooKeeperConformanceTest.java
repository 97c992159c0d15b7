package dev.lockstep.lock.zookeeper;

import dev.lockstep.conformance.ConformanceSuite;
import dev.lockstep.conformance.ConformanceTarget;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole conformance kit on the ZooKeeper lock, each lock client a separate session (as separate
 * processes are). {@link SharedClientLockContractTest} adds a second target for the lock contract:
 * clients that share the process's Curator client.
 */
class ZooKeeperConformanceTest extends ConformanceSuite {

  @TempDir static java.nio.file.Path root;
  private static TestingServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = ZooKeeperTesting.startServer();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @Override
  protected ConformanceTarget target() {
    return ZooKeeperConformanceTargets.separateSessions(server.getConnectString(), root);
  }
}
