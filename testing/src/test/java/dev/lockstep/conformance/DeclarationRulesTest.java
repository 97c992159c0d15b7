package dev.lockstep.conformance;

import static dev.lockstep.conformance.BrokenBackendsTest.assertFailed;
import static dev.lockstep.conformance.BrokenBackendsTest.assertPassed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.CheckResult.Status;
import dev.lockstep.conformance.ConformanceResult.Observed;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The declaration rules: declared absent is skipped with the reason while using it fails cleanly;
 * declared present but missing fails; undeclared or unconfigured fails; zero checks fail the run.
 */
class DeclarationRulesTest {

  @TempDir Path root;

  @TempDir Path reports;

  /** An object store without conditional writes and no lock: a plain FileIO. */
  private ConformanceTarget.Builder plainStoreWithoutLock() {
    return ConformanceTarget.builder()
        .uri("file://" + root.toAbsolutePath())
        .storeFactory(() -> new CapabilityHidingFileIO(new LocalFileIO()))
        .options(LocalTargets.moderate());
  }

  @Test
  void declaredAbsentIsSkippedWithReasonAndUsingItFailsCleanly() throws Exception {
    ConformanceTarget target =
        plainStoreWithoutLock()
            .declare(Capability.STORE_BASICS, true)
            .declare(Capability.ATOMIC_CREATE, false)
            .declare(Capability.ATOMIC_RENAME, false)
            .declare(Capability.LOCK, false)
            .build();
    ConformanceResult result = ConformanceRunner.run(target);
    ConformanceRunner.printSummary(result, System.out);

    assertThat(result.count(Status.FAILED)).isZero();
    assertThat(result.passed()).as(result.verdict()).isTrue();
    assertPassed(result, "AtomicCreateContract.atomicCreateDeclarationMatchesStore");
    assertPassed(result, "AtomicRenameContract.atomicRenameDeclarationMatchesStore");
    assertPassed(result, "LockContract.lockDeclarationMatchesTarget");
    assertPassed(result, "CommitContract.commitStrategyMatchesDeclarations");
    for (String skipped :
        List.of(
            "AtomicCreateContract.exactlyOneCreatorWinsEachRound",
            "AtomicRenameContract.exactlyOneRenameWinsEachRound",
            "LockContract.deadHolderIsFreedWithinBound",
            "CommitContract.concurrentCommitsUnderLock",
            "UncertainOutcomeContract.lostAnswerOnLandedWriteIsCommittedOnce")) {
      CheckResult c = result.check(skipped).orElseThrow();
      assertThat(c.status()).as(skipped).isEqualTo(Status.SKIPPED);
      assertThat(c.reason()).as(skipped).containsAnyOf("declared absent", "No commit strategy");
    }
    assertThat(result.capabilityMatrix())
        .extracting(ConformanceResult.CapabilityRow::observed)
        .containsExactly(Observed.HOLDS, Observed.ABSENT, Observed.ABSENT, Observed.ABSENT);
    assertThat(result.strategies()).noneMatch(ConformanceResult.StrategyVerdict::safe);

    ConformanceRunner.writeReports(result, reports);
    ConformanceRunnerTest.assertJUnitXmlIsValid(
        reports.resolve(ConformanceRunner.XML_REPORT),
        result.checks().size(),
        0,
        (int) result.count(Status.SKIPPED));
    ConformanceRunnerTest.assertHtmlIsStandaloneWithMatrix(
        reports.resolve(ConformanceRunner.HTML_REPORT),
        List.of("present", "absent", "absent", "absent"));
  }

  @Test
  void lockOnlyVendorWithoutStoreChecksTheLockAndSkipsTheRest() {
    InJvmLockClients lock = new InJvmLockClients(LocalTargets.LEASE_TTL);
    ConformanceTarget target =
        ConformanceTarget.builder()
            .lockFactory(lock.factory())
            .holderKiller(lock.killer())
            .options(LocalTargets.moderate())
            .declare(Capability.STORE_BASICS, false)
            .declare(Capability.ATOMIC_CREATE, false)
            .declare(Capability.ATOMIC_RENAME, false)
            .declare(Capability.LOCK, true)
            .build();
    ConformanceResult result = ConformanceRunner.run(target);
    ConformanceRunner.printSummary(result, System.out);
    assertThat(result.passed()).as(result.verdict()).isTrue();
    assertPassed(result, "StoreContract.storeBasicsDeclarationMatchesTarget");
    assertThat(result.capabilityMatrix())
        .extracting(ConformanceResult.CapabilityRow::observed)
        .containsExactly(Observed.ABSENT, Observed.ABSENT, Observed.ABSENT, Observed.HOLDS);
    assertThat(result.checks().stream().filter(c -> c.contract().equals("LockContract")))
        .allSatisfy(c -> assertThat(c.status()).as(c.name()).isEqualTo(Status.PASSED));
    CheckResult commit = result.check("CommitContract.concurrentCommitsUnderLock").orElseThrow();
    assertThat(commit.status()).isEqualTo(Status.SKIPPED);
    assertThat(commit.reason()).contains("no store under test");
  }

  @Test
  void declaredPresentButMissingFails() {
    ConformanceTarget target =
        plainStoreWithoutLock()
            .declare(Capability.STORE_BASICS, true)
            .declare(Capability.ATOMIC_CREATE, true)
            .declare(Capability.ATOMIC_RENAME, false)
            .declare(Capability.LOCK, false)
            .build();
    ConformanceResult result =
        ConformanceRunner.run(target, List.of(RunnerContracts.AtomicCreate.class));
    assertFailed(
        result,
        "AtomicCreateContract.atomicCreateDeclarationMatchesStore",
        "must implement SupportsAtomicCreate");
    assertFailed(
        result,
        "AtomicCreateContract.exactlyOneCreatorWinsEachRound",
        "must implement SupportsAtomicCreate");
    assertThat(result.capabilityMatrix().get(1).observed()).isEqualTo(Observed.BROKEN);
  }

  @Test
  void undeclaredCapabilityFailsEveryCheckThatNeedsIt() throws Exception {
    ConformanceTarget target =
        plainStoreWithoutLock().declare(Capability.STORE_BASICS, true).build();
    ConformanceResult result =
        ConformanceRunner.run(
            target, List.of(RunnerContracts.AtomicCreate.class, RunnerContracts.Lock.class));
    assertThat(result.checks())
        .isNotEmpty()
        .allSatisfy(
            c -> {
              assertThat(c.status()).as(c.name()).isEqualTo(Status.FAILED);
              assertThat(c.reason()).as(c.name()).contains("is not declared", "=true|false");
            });
    assertThat(result.passed()).isFalse();
    assertThat(result.verdict()).contains("not declared");
  }

  @Test
  void unconfiguredSuiteFails() {
    ConformanceResult result =
        ConformanceRunner.run(
            ConformanceTarget.builder().build(), List.of(UnconfiguredStoreContract.class));
    assertThat(result.checks())
        .hasSize(13)
        .allSatisfy(
            c -> {
              assertThat(c.status()).as(c.name()).isEqualTo(Status.FAILED);
              assertThat(c.reason()).as(c.name()).contains("Unconfigured suite");
            });
    assertThat(result.passed()).isFalse();
  }

  @Test
  void targetWithoutStoreFailsWithTheKeyToSet() {
    ConformanceTarget target = ConformanceTarget.builder().declare(Capability.values()).build();
    ConformanceResult result = ConformanceRunner.run(target, List.of(RunnerContracts.Store.class));
    assertFailed(result, "StoreContract.readAfterWrite", "set 'uri'");
  }

  @Test
  void runWithZeroChecksFails() {
    ConformanceResult result = ConformanceRunner.run(LocalTargets.local(root).build(), List.of());
    assertThat(result.checks()).isEmpty();
    assertThat(result.passed()).isFalse();
    assertThat(result.verdict()).contains("no check ran");
  }

  /** A vendor class whose target() was never filled in. */
  static final class UnconfiguredStoreContract extends StoreContract {
    @Override
    protected ConformanceTarget target() {
      return null;
    }
  }
}
