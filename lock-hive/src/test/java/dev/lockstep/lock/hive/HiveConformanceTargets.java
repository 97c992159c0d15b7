package dev.lockstep.lock.hive;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The conformance target for the Hive lock: {@code lock.type=hive} on the test metastore, over a
 * local directory declared as it is. For its commit-under-lock checks the kit itself puts the store
 * behind blind, non-atomic puts, so that only the lock keeps committers apart. The holder-death
 * check uses the kit's default killer: a child JVM that acquires and halts; the metastore's
 * housekeeper then times its lock out.
 */
final class HiveConformanceTargets {

  private HiveConformanceTargets() {}

  static ConformanceTarget on(TestMetastore metastore, Path root) {
    Map<String, String> options = new HashMap<>(metastore.lockOptions());
    options.remove("lock.enabled");
    options.put("lock-check-max-sleep", "50 ms");
    return ConformanceTarget.builder()
        .uri(root.toUri().toString())
        .options(options)
        .lockType(HiveLockFactory.IDENTIFIER)
        .storeFactory(LocalFileIO::new)
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_CREATE, true)
        .declare(Capability.ATOMIC_RENAME, true)
        .declare(Capability.LOCK, true)
        .build();
  }
}
