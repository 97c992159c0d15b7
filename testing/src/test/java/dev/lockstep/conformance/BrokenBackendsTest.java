package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.CheckResult.Status;
import dev.lockstep.conformance.broken.CheckThenPutCreateFileIO;
import dev.lockstep.conformance.broken.ForgetfulCreateFileIO;
import dev.lockstep.conformance.broken.ImmortalLeaseLockService;
import dev.lockstep.conformance.broken.OverwritingRenameFileIO;
import dev.lockstep.conformance.broken.TwoHolderLockService;
import dev.lockstep.testing.InJvmLockService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit must fail each deliberately broken backend, by name, with the check that targets it. Each
 * contract runs through the JUnit Platform Launcher ({@link ConformanceRunner#run}) and the results
 * are inspected check by check.
 */
class BrokenBackendsTest {

  @TempDir Path root;

  @Test
  void checkThenPutCreateIsFailedByTheCreateRace() {
    ConformanceTarget target =
        LocalTargets.local(root)
            .storeFactory(CheckThenPutCreateFileIO::new)
            .declare(Capability.ATOMIC_RENAME, false)
            // A check-then-put window is microseconds wide; on a loaded 2-core machine a round
            // catches
            // it only sometimes, so this runs enough rounds that missing it is practically
            // impossible.
            .option(ConformanceSettings.ROUNDS, "200")
            .option(ConformanceSettings.CONTENDERS, "8")
            .build();
    ConformanceResult result =
        ConformanceRunner.run(target, List.of(RunnerContracts.AtomicCreate.class));
    assertFailed(
        result,
        "AtomicCreateContract.exactlyOneCreatorWinsEachRound",
        "two contenders were told they won");
    assertPassed(result, "AtomicCreateContract.atomicCreateDeclarationMatchesStore");
    assertThat(result.passed()).isFalse();
  }

  @Test
  void overwritingRenameIsFailedByTheRenameRace() {
    ConformanceTarget target =
        LocalTargets.local(root)
            .storeFactory(OverwritingRenameFileIO::new)
            .declare(Capability.ATOMIC_CREATE, false)
            .build();
    ConformanceResult result =
        ConformanceRunner.run(target, List.of(RunnerContracts.AtomicRename.class));
    assertFailed(
        result,
        "AtomicRenameContract.exactlyOneRenameWinsEachRound",
        "two contenders were told they won");
    assertFailed(
        result,
        "AtomicRenameContract.renameOntoExistingTargetFails",
        "renameAtomically onto an existing target");
    assertPassed(result, "AtomicRenameContract.atomicRenameDeclarationMatchesStore");
    assertPassed(result, "AtomicRenameContract.renameOfMissingSourceFails");
  }

  @Test
  void lockThatLetsTwoHoldersInIsFailedByMutualExclusion() {
    TwoHolderLockService.Shared shared = new TwoHolderLockService.Shared();
    ConformanceTarget target =
        LocalTargets.local(root).lockFactory(() -> new TwoHolderLockService(shared)).build();
    ConformanceResult result = ConformanceRunner.run(target, List.of(RunnerContracts.Lock.class));
    assertFailed(
        result,
        "LockContract.mutualExclusionKeepsCounterExact",
        "times two holders were inside the lock at once");
    assertPassed(result, "LockContract.lockDeclarationMatchesTarget");
  }

  /**
   * The commit-under-lock check must not borrow safety from the store: the kit runs it over blind
   * puts, so with a lock that lets two holders in, two committers both win a snapshot and one
   * commit is lost. (Over the local store's own {@code link(2)} publish this check passed with the
   * broken lock.) The lock-free strategies still pass.
   */
  @Test
  void lockThatLetsTwoHoldersInIsFailedByTheCommitUnderLockCheck() {
    TwoHolderLockService.Shared shared = new TwoHolderLockService.Shared();
    ConformanceTarget target =
        LocalTargets.local(root)
            .lockFactory(() -> new TwoHolderLockService(shared))
            .option(ConformanceSettings.COMMITTERS, "8")
            .option(ConformanceSettings.COMMITS_PER_COMMITTER, "25")
            .build();
    ConformanceResult result = ConformanceRunner.run(target, List.of(RunnerContracts.Commit.class));
    assertFailed(result, "CommitContract.concurrentCommitsUnderLock", "lock (plain write)");
    assertPassed(result, "CommitContract.concurrentCommitsWithAtomicCreate");
    assertPassed(result, "CommitContract.concurrentCommitsWithRename");
    assertThat(result.passed()).isFalse();
  }

  @Test
  void leaseThatNeverExpiresAfterHolderDeathIsFailedByTheHolderDeathCheck() {
    InJvmLockService immortal = ImmortalLeaseLockService.immortalLeases();
    InJvmLockClients clients = new InJvmLockClients(immortal);
    ConformanceTarget target =
        LocalTargets.local(root)
            .lockFactory(() -> new ImmortalLeaseLockService(immortal))
            .holderKiller(clients.killer())
            .option(ConformanceSettings.TOLERANCE, "1 s")
            .build();
    long start = System.nanoTime();
    ConformanceResult result = ConformanceRunner.run(target, List.of(RunnerContracts.Lock.class));
    assertFailed(
        result,
        "LockContract.deadHolderIsFreedWithinBound",
        "the dead holder's lock must be free within holderDeathBound()");
    assertPassed(result, "LockContract.mutualExclusionKeepsCounterExact");
    assertPassed(result, "LockContract.ensureHeldFailsOnceLeaseIsGone");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as(
            "the check gives up after the"
                + " claimed bound plus the tolerance, it does not wait for the hour-long lease")
        .isLessThan(Duration.ofMinutes(1));
  }

  @Test
  void createThatForgetsAcknowledgedWritesIsFailedByTheCommitChecks() {
    ConformanceTarget target =
        LocalTargets.local(root)
            .storeFactory(ForgetfulCreateFileIO::new)
            .declare(Capability.ATOMIC_RENAME, false)
            .build();
    ConformanceResult result = ConformanceRunner.run(target, List.of(RunnerContracts.Commit.class));
    assertFailed(
        result,
        "CommitContract.concurrentCommitsWithAtomicCreate",
        "4 committers x 8 commits must give snapshots 1..32");
    assertPassed(result, "CommitContract.concurrentCommitsUnderLock");
    assertThat(result.strategies().get(0).safe()).isFalse();
  }

  static void assertFailed(ConformanceResult result, String check, String reason) {
    ConformanceRunner.printSummary(result, System.out);
    assertThat(result.check(check))
        .as("%s must have run; checks: %s", check, result.checks())
        .isPresent();
    CheckResult c = result.check(check).get();
    assertThat(c.status())
        .as("%s must fail this broken backend; it %s: %s", check, c.status(), c.reason())
        .isEqualTo(Status.FAILED);
    assertThat(c.reason()).as("why %s failed", check).contains(reason);
  }

  static void assertPassed(ConformanceResult result, String check) {
    CheckResult c =
        result.check(check).orElseThrow(() -> new AssertionError(check + " did not run"));
    assertThat(c.status()).as("%s: %s", check, c.reason()).isEqualTo(Status.PASSED);
  }
}
