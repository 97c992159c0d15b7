package dev.lockstep.architecture;

import org.junit.jupiter.api.Test;

/**
 * The testing module keeps the architecture rules (docs/architecture.md; {@link
 * ModuleArchitecture}).
 */
class ArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofThisModule("dev.lockstep.testing", "dev.lockstep.architecture")
        .assertAllRules();
  }
}
