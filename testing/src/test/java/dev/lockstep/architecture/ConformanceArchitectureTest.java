package dev.lockstep.architecture;

import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * conformance-tests keeps the architecture rules (docs/architecture.md; {@link
 * ModuleArchitecture}). The test runs here, as lock-api's does, because the rules are this module's
 * code and this module depends on the kit (docs/decisions.md, "One testing module").
 */
class ConformanceArchitectureTest {

  @Test
  void keepsTheArchitectureRules() {
    ModuleArchitecture.ofClasses(
            Paths.get("..", "conformance-tests", "target", "classes"), "dev.lockstep.conformance")
        .assertAllRules();
  }
}
