package dev.lockstep.lock.zookeeper;

import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.LockContract;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The kit's lock contract on a real ZooKeeper server, each lock client its own session. */
class ZooKeeperLockContractTest extends LockContract {

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
