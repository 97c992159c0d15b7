package dev.lockstep.lock.jdbc;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.util.Map;

/**
 * Conformance targets for the JDBC lock: a local directory whose atomic create and rename are hidden
 * (so that only the lock keeps committers apart) and {@code lock.type=jdbc} on a real database. The
 * holder-death check uses the kit's default killer: a child JVM that acquires and halts.
 */
final class JdbcConformanceTargets {

  private JdbcConformanceTargets() {}

  /** A target on {@code database}, with a lock table of its own, storing under {@code root}. */
  static ConformanceTarget on(TestDatabase database, String table, java.nio.file.Path root) {
    Map<String, String> options = database.options(table);
    options.remove("lock.enabled");
    return ConformanceTarget.builder()
        .uri(root.toUri().toString())
        .options(options)
        .lockType(JdbcCatalogLockFactory.IDENTIFIER)
        .storeFactory(() -> new CapabilityHidingFileIO(new LocalFileIO()))
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_CREATE, false)
        .declare(Capability.ATOMIC_RENAME, false)
        .declare(Capability.LOCK, true)
        .build();
  }
}
