package dev.lockstep.lock.zookeeper;

import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.LockContract;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit's lock contract through {@code LockServiceDiscovery}, as a catalog opens the lock: every
 * client in this JVM shares the process's Curator client, and the contract must hold all the same.
 */
class SharedClientLockContractTest extends LockContract {

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
    return ZooKeeperConformanceTargets.processSharedClient(server.getConnectString(), root);
  }
}
