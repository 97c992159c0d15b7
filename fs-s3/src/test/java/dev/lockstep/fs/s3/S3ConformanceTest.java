package dev.lockstep.fs.s3;

import dev.lockstep.conformance.ConformanceSuite;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole conformance kit on the S3 store (s3proxy 4.0.0), with no lock: atomic create declared
 * present, atomic rename and the lock declared absent.
 */
class S3ConformanceTest extends ConformanceSuite {

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
