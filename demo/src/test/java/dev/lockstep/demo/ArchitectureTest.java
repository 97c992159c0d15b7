package dev.lockstep.demo;

import dev.lockstep.architecture.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/** demo keeps the architecture rules (docs/architecture.md; {@link ModuleArchitecture}). */
class ArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofThisModule("dev.lockstep.demo").assertAllRules();
  }
}
