package dev.lockstep.fs.s3;

import dev.lockstep.architecture.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/** fs-s3 keeps the architecture rules (docs/architecture.md; {@link ModuleArchitecture}). */
class ArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofThisModule("dev.lockstep.fs.s3").assertAllRules();
  }
}
