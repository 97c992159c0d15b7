package dev.lockstep.fs.oss;

import dev.lockstep.conformance.ConformanceSuite;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.fs.oss.testing.OssTestServer;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole conformance kit through the real OSS SDK against the OSS test server, with no lock.
 * {@link OssCommitContractTest} adds a second target: the commit contract under a lock.
 */
class OssConformanceTest extends ConformanceSuite {

  private static OssTestServer server;

  @BeforeAll
  static void startServer() throws IOException {
    server = OssTestServer.start().createBucket(OssTargets.BUCKET);
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Override
  protected ConformanceTarget target() {
    return OssTargets.target(server);
  }
}
