package dev.lockstep.conformance.vendor;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.StoreContract;
import org.junit.jupiter.api.io.TempDir;

/**
 * A vendor's store test in its own package, with the store found through {@code FileIODiscovery}
 * from the URI (no factory), and the lock declared absent: the store checks run on a sub-path of
 * the URI per check.
 */
class VendorPackageStoreContractTest extends StoreContract {

  @TempDir static java.nio.file.Path root;

  @Override
  protected ConformanceTarget target() {
    return ConformanceTarget.builder()
        .uri(root.toUri().toString())
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_CREATE, true)
        .declare(Capability.ATOMIC_RENAME, true)
        .declare(Capability.LOCK, false)
        .build();
  }
}
