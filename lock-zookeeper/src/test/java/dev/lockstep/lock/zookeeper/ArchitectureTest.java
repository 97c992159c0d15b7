package dev.lockstep.lock.zookeeper;

import dev.lockstep.architecture.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/**
 * lock-zookeeper keeps the architecture rules (docs/architecture.md; {@link ModuleArchitecture}).
 */
class ArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofThisModule("dev.lockstep.lock.zookeeper").assertAllRules();
  }
}
