package dev.lockstep.fs.oss;

import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.UncertainOutcomeContract;
import dev.lockstep.fs.oss.testing.OssTestServer;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The kit's UncertainOutcomeContract through the real OSS SDK against the OSS test server, no lock. */
class OssUncertainOutcomeContractTest extends UncertainOutcomeContract {

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
