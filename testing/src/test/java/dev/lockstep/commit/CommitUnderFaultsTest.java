package dev.lockstep.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.InJvmLockService;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Racing writers on a store that fails at random (seeded, so a failure replays): failures before
 * landing and lost answers after landing. No commit is lost or landed twice.
 */
class CommitUnderFaultsTest {

  @TempDir java.nio.file.Path dir;

  @Test
  void atomicCreateWithRandomFaultsKeepsEveryInvariant() throws Exception {
    FaultInjectingStore io =
        FaultInjectingStore.wrap(new LocalFileIO())
            .failRandomly(Operation.CREATE, Fault.FAIL_BEFORE_LANDING, 0.15, 42)
            .failRandomly(Operation.CREATE, Fault.LOSE_ANSWER_AFTER_LANDING, 0.15, 7);
    CommitOptions options = CommitOptions.from(Map.of("commit.write-attempts", "5"));
    ConcurrentCommits race = new ConcurrentCommits();

    race.run(
        6,
        40,
        w ->
            SnapshotCommitter.builder(io, Path.of(dir.toString()), "db.t")
                .options(options)
                .build());

    race.assertInvariants(new SnapshotLog(io.delegate(), Path.of(dir.toString())), 240);
    assertThat(io.injected(Operation.CREATE, Fault.FAIL_BEFORE_LANDING)).isPositive();
    assertThat(io.injected(Operation.CREATE, Fault.LOSE_ANSWER_AFTER_LANDING)).isPositive();
  }

  @Test
  void lockedPlainWritesWithRandomFaultsKeepEveryInvariant() throws Exception {
    FaultInjectingStore io =
        FaultInjectingStore.wrap(new CapabilityHidingFileIO(new LocalFileIO()))
            .failRandomly(Operation.WRITE, Fault.FAIL_BEFORE_LANDING, 0.15, 11)
            .failRandomly(Operation.WRITE, Fault.LOSE_ANSWER_AFTER_LANDING, 0.15, 13);
    CommitOptions options =
        CommitOptions.from(
            Map.of("lock.enabled", "true", "lock.type", "in-jvm", "commit.write-attempts", "5"));
    ConcurrentCommits race = new ConcurrentCommits();

    try (InJvmLockService lock = new InJvmLockService()) {
      race.run(
          8,
          20,
          w ->
              SnapshotCommitter.builder(io, Path.of(dir.toString()), "db.t")
                  .options(options)
                  .lockService(lock)
                  .build());
    }

    race.assertInvariants(new SnapshotLog(io.delegate(), Path.of(dir.toString())), 160);
    assertThat(io.injected()).isPositive();
  }
}
