package dev.lockstep.conformance;

import static dev.lockstep.conformance.BrokenBackendsTest.assertPassed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.CheckResult.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default holder killer for real: a child JVM on the test classpath opens {@code
 * lock.type=test-os-file} through {@code LockServiceDiscovery}, acquires, and halts while holding;
 * the lock contract, with no programmatic killer, passes on this cross-process lock.
 */
class ChildProcessHolderKillerTest {

  @TempDir Path root;

  @Test
  void childJvmHolderDiesAndTheLockContractPasses() {
    ConformanceTarget target =
        ConformanceTarget.builder()
            .uri("file://" + root.toAbsolutePath())
            .lockType("test-os-file")
            .option(OsFileLockFactory.DIRECTORY, root.resolve("locks").toString())
            .options(LocalTargets.moderate())
            .declare(Capability.values())
            .build();
    assertThat(target.hasCustomHolderKiller()).isFalse();
    ConformanceResult result = ConformanceRunner.run(target, List.of(RunnerContracts.Lock.class));
    ConformanceRunner.printSummary(result, System.out);
    assertPassed(result, "LockContract.deadHolderIsFreedWithinBound");
    assertThat(result.count(Status.FAILED)).as(result.checks().toString()).isZero();
    assertThat(result.count(Status.PASSED)).isEqualTo(7);
  }
}
