package dev.lockstep.lock.zookeeper;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.fs.local.LocalFileIO;
import java.util.Map;

/**
 * Conformance targets for the ZooKeeper lock: a local directory, declared as it is, and {@code
 * lock.type=zookeeper} on a real server. For its commit-under-lock checks the kit itself puts the
 * store behind blind, non-atomic puts, so that only the lock keeps committers apart. The
 * holder-death check uses the kit's default killer: a child JVM that acquires through {@code
 * LockServiceDiscovery} and halts, holding the lock until its session times out.
 */
final class ZooKeeperConformanceTargets {

  private ZooKeeperConformanceTargets() {}

  /**
   * Each lock client the kit opens is a separate session, as the kit asks, like separate processes.
   */
  static ConformanceTarget separateSessions(String connectString, java.nio.file.Path root) {
    Map<String, String> options = ZooKeeperTesting.options(connectString);
    return base(options, root)
        .lockFactory(() -> ZooKeeperTesting.ownProcessService(options))
        .build();
  }

  /**
   * Lock clients opened through {@code LockServiceDiscovery}, as a catalog does: in this JVM they
   * share one Curator client (one session).
   */
  static ConformanceTarget processSharedClient(String connectString, java.nio.file.Path root) {
    return base(ZooKeeperTesting.options(connectString), root).build();
  }

  private static ConformanceTarget.Builder base(
      Map<String, String> options, java.nio.file.Path root) {
    return ConformanceTarget.builder()
        .uri(root.toUri().toString())
        .options(options)
        .lockType(ZooKeeperLockFactory.IDENTIFIER)
        .storeFactory(LocalFileIO::new)
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_CREATE, true)
        .declare(Capability.ATOMIC_RENAME, true)
        .declare(Capability.LOCK, true);
  }
}
