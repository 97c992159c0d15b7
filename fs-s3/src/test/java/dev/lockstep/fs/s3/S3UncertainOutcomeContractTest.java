package dev.lockstep.fs.s3;

import dev.lockstep.conformance.UncertainOutcomeContract;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit's UncertainOutcomeContract on the S3 store (s3proxy 4.0.0), with no lock. */
class S3UncertainOutcomeContractTest extends UncertainOutcomeContract {

  private static S3ProxyServer server;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Override
  protected ConformanceTarget target() {
    return S3ConformanceTargets.on(server);
  }
}
