package dev.lockstep.lock.hive;

import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.LockContract;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The kit's lock contract on a real Hive Metastore 4.0.1. */
class HiveLockContractTest extends LockContract {

  @TempDir static Path root;

  @Override
  protected ConformanceTarget target() {
    try {
      return HiveConformanceTargets.on(TestMetastore.shared(), root);
    } catch (Exception e) {
      throw new IllegalStateException("The test metastore did not start", e);
    }
  }
}
