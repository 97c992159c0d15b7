package dev.lockstep.fs.hdfs;

import dev.lockstep.architecture.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/** fs-hdfs keeps the architecture rules (docs/architecture.md; {@link ModuleArchitecture}). */
class ArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofThisModule("dev.lockstep.fs.hdfs").assertAllRules();
  }
}
