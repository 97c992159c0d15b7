package dev.lockstep.fs.oss;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.CommitContract;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.fs.oss.testing.OssTestServer;
import dev.lockstep.testing.ForwardingLockService;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The kit's CommitContract through the real OSS SDK against the OSS test server: lock-free with
 * atomic create, and also with {@code lock.enabled=true} (an in-JVM test lock standing in for a
 * lock service), so that the commit-under-lock checks run on OSS too: the commit protocol uses
 * atomic create inside the lock, and the kit's plain-write checks run over OSS seen as a blind-put
 * store.
 */
class OssCommitContractTest extends CommitContract {

  private static final InJvmLockService LOCK = new InJvmLockService();
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
    ConformanceTarget store = OssTargets.target(server);
    return ConformanceTarget.builder()
        .uri(store.uri())
        .options(store.options())
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_CREATE, true)
        .declare(Capability.ATOMIC_RENAME, false)
        .declare(Capability.LOCK, true)
        .lockFactory(() -> ForwardingLockService.unclosable(LOCK))
        .build();
  }
}
