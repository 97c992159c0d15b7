package dev.lockstep.architecture;

import org.junit.jupiter.api.Test;

/** lock-api keeps the architecture rules (docs/architecture.md; {@link ModuleArchitecture}). */
class ArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofThisModule("dev.lockstep.fs", "dev.lockstep.lock", "dev.lockstep.commit", "dev.lockstep.options").assertAllRules();
  }
}
