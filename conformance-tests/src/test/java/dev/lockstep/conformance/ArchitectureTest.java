package dev.lockstep.conformance;

import dev.lockstep.architecture.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/**
 * conformance-tests keeps the architecture rules (docs/architecture.md; {@link
 * ModuleArchitecture}).
 */
class ArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofThisModule("dev.lockstep.conformance").assertAllRules();
  }
}
