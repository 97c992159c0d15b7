package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitStrategyUnavailableException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.lock.LockService;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The commit protocol on this backend, always checked: with every strategy the declarations allow
 * ({@code atomic-create}, {@code rename}, {@code lock} over a blind put), K committers x C commits
 * give exactly K*C snapshots with contiguous ids and each commit id once, also when a few percent
 * of store calls fail or lose their answer ({@value ConformanceSettings#FAULT_RATE}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class CommitContract extends ConformanceContract {

  /**
   * {@code commit.strategy=auto} picks what the declarations promise: atomic-create, else rename,
   * else a refusal that names the fix; with a lock, the lock strategy; without one, asking for the
   * lock strategy is refused.
   */
  @Test
  @Order(1)
  @Proves(
      "commit.strategy=auto picks what the declarations promise, and refuses with the fix when"
          + " nothing safe is declared.")
  public final void commitStrategyMatchesDeclarations() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    boolean create = declaration(Capability.ATOMIC_CREATE);
    boolean rename = declaration(Capability.ATOMIC_RENAME);
    boolean lock = declaration(Capability.LOCK);
    FileIO store = openStore();
    Path dir = checkDirectory().child("snapshot");
    if (create || rename) {
      try (SnapshotCommitter committer =
          SnapshotCommitter.builder(store, dir, "conformance.table")
              .options(Map.of(CommitOptions.COMMIT_STRATEGY, "auto"))
              .open()) {
        assertThat(committer.strategy())
            .as("commit.strategy=auto without a lock")
            .isEqualTo(create ? "atomic-create" : "rename");
      }
    } else {
      assertThat(
              catchThrowable(
                  () ->
                      SnapshotCommitter.builder(store, dir, "conformance.table")
                          .options(Map.of(CommitOptions.COMMIT_STRATEGY, "auto"))
                          .open()))
          .as("a store without atomic create or rename must refuse to commit without a lock")
          .isInstanceOf(CommitStrategyUnavailableException.class)
          .hasMessageContaining("lock.enabled=true");
    }
    CommitOptions locked = CommitOptions.from(Map.of("lock.enabled", "true"));
    if (lock) {
      try (SnapshotCommitter committer =
          SnapshotCommitter.builder(store, dir, "conformance.table")
              .options(locked)
              .lockService(openLock())
              .build()) {
        assertThat(committer.strategy())
            .as("commit.strategy=auto with lock.enabled=true")
            .startsWith("lock");
      }
    } else {
      assertThat(
              catchThrowable(
                  () ->
                      SnapshotCommitter.builder(store, dir, "conformance.table")
                          .options(locked)
                          .build()))
          .as("lock.enabled=true without a lock service must be refused")
          .isInstanceOf(CommitStrategyUnavailableException.class);
    }
  }

  /** K x C concurrent commits with atomic create: exactly K*C snapshots, contiguous, once each. */
  @Test
  @Order(2)
  @Proves(
      "K committers x C commits with atomic create give exactly K*C snapshots, ids 1..K*C, each"
          + " commit once.")
  public final void concurrentCommitsWithAtomicCreate() throws Exception {
    stress(StrategyUnderTest.ATOMIC_CREATE, false);
  }

  /** K x C concurrent commits with atomic rename: exactly K*C snapshots, contiguous, once each. */
  @Test
  @Order(3)
  @Proves(
      "K committers x C commits with atomic rename give exactly K*C snapshots, ids 1..K*C, each"
          + " commit once.")
  public final void concurrentCommitsWithRename() throws Exception {
    stress(StrategyUnderTest.RENAME, false);
  }

  /**
   * K x C concurrent commits under the lock over a blind put ({@link BlindPutStore}: no capability
   * mixins, a plain write is check-then-put with replace, so only the lock keeps two writers
   * apart): exactly K*C snapshots, contiguous, once each.
   */
  @Test
  @Order(4)
  @Proves(
      "K committers x C commits under the lock over blind (check-then-put) writes give exactly K*C"
          + " snapshots, ids 1..K*C, each commit once.")
  public final void concurrentCommitsUnderLock() throws Exception {
    stress(StrategyUnderTest.LOCK, false);
  }

  /** As {@link #concurrentCommitsWithAtomicCreate}, while store calls fail or lose their answer. */
  @Test
  @Order(5)
  @Proves("As with atomic create, while a few percent of store calls fail or lose their answer.")
  public final void concurrentCommitsWithAtomicCreateUnderFaults() throws Exception {
    stress(StrategyUnderTest.ATOMIC_CREATE, true);
  }

  /** As {@link #concurrentCommitsWithRename}, while store calls fail or lose their answer. */
  @Test
  @Order(6)
  @Proves("As with atomic rename, while a few percent of store calls fail or lose their answer.")
  public final void concurrentCommitsWithRenameUnderFaults() throws Exception {
    stress(StrategyUnderTest.RENAME, true);
  }

  /** As {@link #concurrentCommitsUnderLock}, while store calls fail or lose their answer. */
  @Test
  @Order(7)
  @Proves("As under the lock, while a few percent of store calls fail or lose their answer.")
  public final void concurrentCommitsUnderLockUnderFaults() throws Exception {
    stress(StrategyUnderTest.LOCK, true);
  }

  private void stress(StrategyUnderTest strategy, boolean faults) throws Exception {
    requirePresent(Capability.STORE_BASICS);
    requirePresent(strategy.capability());
    ConformanceSettings s = settings();
    int k = s.committers();
    FileIO checker = openStore();
    Path dir = checkDirectory().child("snapshot");
    List<FileIO> stores = new ArrayList<>();
    List<LockService> locks = new ArrayList<>();
    List<FaultInjectingStore> faulty = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      FileIO store = openStore();
      if (faults) {
        FaultInjectingStore f =
            FaultInjectingStore.wrap(store, FaultPlan.random(s.faultRate(), 7919L * (i + 1)));
        faulty.add(f);
        store = f;
      }
      stores.add(store);
      locks.add(strategy == StrategyUnderTest.LOCK ? openLock() : null);
    }
    String label = strategy.label() + (faults ? " under faults" : "");
    new CommitStress(k, s.commitsPerCommitter(), s.scaled(Duration.ofSeconds(150)))
        .runAndVerify(
            label,
            i -> strategy.open(stores.get(i), dir, locks.get(i), currentTarget()),
            checker,
            dir);
    if (faults) {
      long failedBefore = faulty.stream().mapToLong(FaultInjectingStore::failedBefore).sum();
      long answersLost = faulty.stream().mapToLong(FaultInjectingStore::answersLost).sum();
      assertThat(failedBefore + answersLost)
          .as(
              "%s: the run must have injected faults (%d calls failed before reaching the store,"
                  + " %d answers lost); raise %s",
              label, failedBefore, answersLost, ConformanceSettings.FAULT_RATE)
          .isPositive();
    }
  }
}
