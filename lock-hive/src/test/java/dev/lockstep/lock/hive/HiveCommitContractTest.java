package dev.lockstep.lock.hive;

import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.CommitContract;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The kit's commit contract (K committers under the lock over plain writes) on a real Hive Metastore 4.0.1. */
class HiveCommitContractTest extends CommitContract {

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
