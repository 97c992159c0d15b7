package dev.lockstep.lock.jdbc;

import dev.lockstep.architecture.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/** lock-jdbc keeps the architecture rules (docs/architecture.md; {@link ModuleArchitecture}). */
class ArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofThisModule("dev.lockstep.lock.jdbc").assertAllRules();
  }
}
