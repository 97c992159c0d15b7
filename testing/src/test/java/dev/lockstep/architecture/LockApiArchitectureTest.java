package dev.lockstep.architecture;

import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * lock-api keeps the architecture rules (docs/architecture.md; {@link ModuleArchitecture}). The
 * test runs here because the rules are this module's code and lock-api cannot depend on it
 * (docs/decisions.md, "One testing module").
 */
class LockApiArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofClasses(
            Paths.get("..", "lock-api", "target", "classes"),
            "dev.lockstep.fs",
            "dev.lockstep.lock",
            "dev.lockstep.commit",
            "dev.lockstep.options")
        .assertAllRules();
  }
}
