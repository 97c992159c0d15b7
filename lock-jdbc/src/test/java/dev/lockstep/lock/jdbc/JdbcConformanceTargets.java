package dev.lockstep.lock.jdbc;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.testing.TestTiming;
import java.util.Map;

/**
 * Conformance targets for the JDBC lock: {@code lock.type=jdbc} on a real database over the local
 * store, declared as it is (atomic create and rename present), so that no check is skipped. The
 * kit's lock commit checks hide the store's conditional writes themselves: there only the JDBC lock
 * keeps committers apart. The holder-death check uses the kit's default killer: a child JVM that
 * acquires through {@code LockServiceDiscovery} and halts.
 */
final class JdbcConformanceTargets {

  private JdbcConformanceTargets() {}

  /** A target on {@code database}, with a lock table of its own, storing under {@code root}. */
  static ConformanceTarget on(TestDatabase database, String table, java.nio.file.Path root) {
    Map<String, String> options = database.options(table);
    options.remove("lock.enabled");
    options.put("conformance.time-factor", Double.toString(TestTiming.FACTOR));
    return ConformanceTarget.builder()
        .uri(root.toUri().toString())
        .options(options)
        .lockType(JdbcCatalogLockFactory.IDENTIFIER)
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_CREATE, true)
        .declare(Capability.ATOMIC_RENAME, true)
        .declare(Capability.LOCK, true)
        .build();
  }
}
