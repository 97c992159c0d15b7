package dev.lockstep.fs.oss;

import dev.lockstep.architecture.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/** fs-oss keeps the architecture rules (docs/architecture.md; {@link ModuleArchitecture}). */
class ArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofThisModule("dev.lockstep.fs.oss").assertAllRules();
  }
}
