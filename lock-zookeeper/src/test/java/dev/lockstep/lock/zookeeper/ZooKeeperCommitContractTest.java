package dev.lockstep.lock.zookeeper;

import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.CommitContract;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The kit's commit contract on a real ZooKeeper server, each lock client its own session. */
class ZooKeeperCommitContractTest extends CommitContract {

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
