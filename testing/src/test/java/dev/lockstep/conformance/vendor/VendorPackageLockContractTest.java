package dev.lockstep.conformance.vendor;

import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.InJvmLockClients;
import dev.lockstep.conformance.LockContract;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.TestTiming;
import org.junit.jupiter.api.io.TempDir;

/**
 * A vendor's test as a backend module writes it: one small class in its own package. Proves that
 * the kit's lifecycle (per-check target, settings, cleanup) runs for subclasses outside the kit's
 * package, here with an in-JVM lock and a programmatic holder killer.
 */
class VendorPackageLockContractTest extends LockContract {

  @TempDir static java.nio.file.Path root;

  @Override
  protected ConformanceTarget target() {
    InJvmLockClients lock = new InJvmLockClients(TestTiming.seconds(3));
    return ConformanceTarget.builder()
        .uri("file://" + root.toAbsolutePath())
        .storeFactory(LocalFileIO::new)
        .lockFactory(lock.factory())
        .holderKiller(lock.killer())
        .declare(Capability.values())
        .option("conformance.lock-increments", "10")
        .option("conformance.time-factor", Double.toString(TestTiming.FACTOR))
        .build();
  }
}
