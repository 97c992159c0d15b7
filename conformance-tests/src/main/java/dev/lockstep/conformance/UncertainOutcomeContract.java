package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Uncertain outcomes: the kit wraps the vendor's store so that a snapshot write lands but its
 * answer is lost (or fails before landing), and checks that the commit protocol resolves each case
 * by reading back, with every strategy the declarations allow:
 *
 * <ul>
 *   <li>a lost answer on our landed write is COMMITTED, never retried into a second snapshot;
 *   <li>a lost answer on a write that lost the race is CONFLICT;
 *   <li>a failure before landing is retried and commits once;
 *   <li>when even the read-back fails, the outcome is surfaced as unknown, never guessed.
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class UncertainOutcomeContract extends ConformanceContract {

  /** A write lands, its answer is lost: COMMITTED, exactly one snapshot, nothing at N+1. */
  @Test
  @Order(1)
  @Proves(
      "A snapshot write that lands but loses its answer resolves to COMMITTED, and is never"
          + " committed a second time.")
  public final void lostAnswerOnLandedWriteIsCommittedOnce() throws Exception {
    for (StrategyUnderTest strategy : strategies()) {
      Path dir = checkDirectory().child(dirName(strategy));
      FileIO checker = openStore();
      for (long id = 1; id <= 3; id++) {
        byte[] content = content(strategy, "ours-" + id);
        FaultInjectingStore injected =
            faulty(FaultPlan.nextWrites("snapshot-" + id, 1, Fault.LOSE_ANY_ANSWER));
        try (SnapshotCommitter committer = open(strategy, dir, injected)) {
          assertThat(committer.commit(id, SnapshotContent.of(content)).outcome())
              .as("%s: commit of snapshot %d whose answer" + " was lost", strategy, id)
              .isEqualTo(CommitOutcome.COMMITTED);
        }
        assertAnswerLost(strategy, "the write of snapshot " + id, injected);
        assertThat(new SnapshotLog(checker, dir).read(id))
            .as("%s: snapshot %d holds our bytes", strategy, id)
            .isEqualTo(content);
      }
      assertThat(new SnapshotLog(checker, dir).listIds())
          .as("%s: never committed twice; %s", strategy, listing(checker, dir))
          .containsExactly(1L, 2L, 3L);
    }
  }

  /** Another writer owns N; our write's answer is lost: CONFLICT, and N keeps the other's bytes. */
  @Test
  @Order(2)
  @Proves(
      "A lost answer on a write to a snapshot someone else owns resolves to CONFLICT; the owner"
          + " keeps it.")
  public final void lostAnswerOnLosingWriteIsConflict() throws Exception {
    for (StrategyUnderTest strategy : strategies()) {
      Path dir = checkDirectory().child(dirName(strategy));
      FileIO checker = openStore();
      byte[] theirs = content(strategy, "theirs");
      try (SnapshotCommitter other = open(strategy, dir, faulty(FaultPlan.none()))) {
        assertThat(other.commit(1, SnapshotContent.of(theirs)).outcome())
            .isEqualTo(CommitOutcome.COMMITTED);
      }
      FaultInjectingStore injected =
          faulty(FaultPlan.nextWrites("snapshot-1", 1, Fault.LOSE_ANY_ANSWER));
      try (SnapshotCommitter committer = open(strategy, dir, injected)) {
        assertThat(committer.commit(1, SnapshotContent.of(content(strategy, "ours"))).outcome())
            .as("%s: our lost-answer write to a snapshot someone else owns", strategy)
            .isEqualTo(CommitOutcome.CONFLICT);
      }
      if (strategy == StrategyUnderTest.LOCK) {
        // Under its lease the lock strategy sees the owner's snapshot before writing: no write,
        // so no answer to lose. Writing anyway would replace the owner's bytes (checked below).
        assertThat(injected.injected())
            .as(
                "%s: no write onto a snapshot seen taken under the lease (%s)",
                strategy, injected.injectedSummary())
            .isZero();
      } else {
        assertAnswerLost(strategy, "our write of snapshot 1", injected);
      }
      assertThat(new SnapshotLog(checker, dir).read(1))
          .as("%s: snapshot 1 keeps its owner's bytes", strategy)
          .isEqualTo(theirs);
      assertThat(new SnapshotLog(checker, dir).listIds()).containsExactly(1L);
    }
  }

  /** A write fails before it reaches the store: the committer retries and commits once. */
  @Test
  @Order(3)
  @Proves("A write that fails before reaching the store is retried and commits exactly once.")
  public final void failureBeforeLandingIsRetriedOnce() throws Exception {
    for (StrategyUnderTest strategy : strategies()) {
      Path dir = checkDirectory().child(dirName(strategy));
      FileIO checker = openStore();
      byte[] content = content(strategy, "ours");
      FaultInjectingStore injected =
          faulty(FaultPlan.nextWrites("snapshot-1", 1, Fault.FAIL_BEFORE_LANDING));
      try (SnapshotCommitter committer = open(strategy, dir, injected)) {
        assertThat(committer.commit(1, SnapshotContent.of(content)).outcome())
            .as("%s: commit after one failed attempt", strategy)
            .isEqualTo(CommitOutcome.COMMITTED);
      }
      assertThat(injected.failedBefore())
          .as(
              "%s: the first write of snapshot 1 must have failed before landing (%s)",
              strategy, injected.injectedSummary())
          .isEqualTo(1);
      assertThat(new SnapshotLog(checker, dir).read(1)).isEqualTo(content);
      assertThat(new SnapshotLog(checker, dir).listIds())
          .as("%s; %s", strategy, listing(checker, dir))
          .containsExactly(1L);
    }
  }

  /**
   * The write lands, its answer is lost, and reading it back fails too: the commit raises {@link
   * CommitStateUnknownException}; it never claims COMMITTED or CONFLICT it could not see.
   */
  @Test
  @Order(4)
  @Proves(
      "When the answer is lost and the read-back fails too, the commit reports UNKNOWN instead of"
          + " guessing.")
  public final void unreadableOutcomeIsSurfacedAsUnknown() throws Exception {
    for (StrategyUnderTest strategy : strategies()) {
      Path dir = checkDirectory().child(dirName(strategy));
      FileIO checker = openStore();
      byte[] content = content(strategy, "ours");
      FaultPlan blindReads =
          (operation, path) ->
              operation == Operation.READ && path.name().equals("snapshot-1")
                  ? Fault.FAIL_BEFORE_LANDING
                  : null;
      FaultInjectingStore injected =
          faulty(FaultPlan.nextWrites("snapshot-1", 1, Fault.LOSE_ANY_ANSWER).orElse(blindReads));
      try (SnapshotCommitter committer = open(strategy, dir, injected)) {
        assertThat(catchThrowable(() -> committer.commit(1, SnapshotContent.of(content))))
            .as("%s: a lost answer whose read-back fails must be reported unknown", strategy)
            .isInstanceOf(CommitStateUnknownException.class);
      }
      assertAnswerLost(strategy, "the write of snapshot 1", injected);
      assertThat(injected.failedBefore())
          .as("%s: the read-back must have been failed (%s)", strategy, injected.injectedSummary())
          .isPositive();
      assertThat(new SnapshotLog(checker, dir).read(1))
          .as("%s: the write did land", strategy)
          .isEqualTo(content);
    }
  }

  private List<StrategyUnderTest> strategies() {
    requirePresent(Capability.STORE_BASICS);
    List<StrategyUnderTest> out = new ArrayList<>();
    for (StrategyUnderTest strategy : StrategyUnderTest.values()) {
      if (declaration(strategy.capability())) {
        out.add(strategy);
      }
    }
    if (out.isEmpty()) {
      org.junit.jupiter.api.Assumptions.abort(
          "No commit strategy applies: atomic-create,"
              + " atomic-rename and lock are all declared absent (the commit checks assert that"
              + " committing is refused cleanly).");
    }
    return out;
  }

  private FaultInjectingStore faulty(FaultPlan plan) throws Exception {
    return FaultInjectingStore.wrap(openStore(), plan);
  }

  private SnapshotCommitter open(StrategyUnderTest strategy, Path dir, FileIO store)
      throws Exception {
    return strategy.open(
        store, dir, strategy == StrategyUnderTest.LOCK ? openLock() : null, currentTarget());
  }

  /**
   * The scenario happened: exactly one write landed and lost its answer. Without this a check whose
   * fault never fired (a strategy that writes elsewhere, a plan that misses the path) would pass on
   * an ordinary commit.
   */
  private static void assertAnswerLost(
      StrategyUnderTest strategy, String what, FaultInjectingStore injected) {
    assertThat(injected.answersLost())
        .as(
            "%s: %s must have landed with its answer lost (%s)",
            strategy, what, injected.injectedSummary())
        .isEqualTo(1);
  }

  private static String dirName(StrategyUnderTest strategy) {
    return strategy.name().toLowerCase(java.util.Locale.ROOT) + "/snapshot";
  }

  private static byte[] content(StrategyUnderTest strategy, String who) {
    return ("{\"commitId\":\""
            + strategy.name()
            + "-"
            + who
            + "-"
            + java.util.UUID.randomUUID()
            + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }
}
