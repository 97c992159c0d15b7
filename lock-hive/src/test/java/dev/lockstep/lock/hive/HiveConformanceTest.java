package dev.lockstep.lock.hive;

import dev.lockstep.conformance.ConformanceSuite;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The whole conformance kit on the Hive Metastore lock (the shared test metastore). */
class HiveConformanceTest extends ConformanceSuite {

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
