package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * After any failure or uncertain outcome the committer reads {@code snapshot-N} back: our commit id
 * there means COMMITTED; absence means retry; a read-back that fails means UNKNOWN, and nothing is
 * cleaned up.
 */
class CommitRecoveryTest {

  /** The three ways a snapshot is published, and the store call that publishes it. */
  enum Setup {
    ATOMIC_CREATE(Operation.CREATE, "atomic-create"),
    RENAME(Operation.RENAME, "rename"),
    LOCKED_PLAIN_WRITE(Operation.WRITE, "lock (plain write)");

    final Operation publishes;
    final String strategy;

    Setup(Operation publishes, String strategy) {
      this.publishes = publishes;
      this.strategy = strategy;
    }
  }

  @TempDir java.nio.file.Path dir;
  private final InJvmLockService lock = new InJvmLockService();
  private FaultInjectingStore io;

  @AfterEach
  void closeLock() {
    lock.close();
  }

  private SnapshotCommitter committer(Setup setup, Map<String, String> options) {
    LocalFileIO local = new LocalFileIO();
    FileIO base =
        switch (setup) {
          case ATOMIC_CREATE -> local;
          case RENAME -> CapabilityHidingFileIO.atomicRenameOnly(local);
          case LOCKED_PLAIN_WRITE -> new CapabilityHidingFileIO(local);
        };
    io = FaultInjectingStore.wrap(base);
    Map<String, String> all = new java.util.HashMap<>(options);
    if (setup == Setup.LOCKED_PLAIN_WRITE) {
      all.put("lock.enabled", "true");
      all.put("lock.type", "in-jvm");
    }
    SnapshotCommitter committer =
        SnapshotCommitter.builder(io, Path.of(dir.toString()), "db.t")
            .options(CommitOptions.from(all))
            .lockService(setup == Setup.LOCKED_PLAIN_WRITE ? lock : null)
            .build();
    assertThat(committer.strategy()).isEqualTo(setup.strategy);
    return committer;
  }

  private static byte[] content(long id) {
    return ("{\"id\":" + id + ",\"commitId\":\"" + UUID.randomUUID() + "\"}").getBytes(UTF_8);
  }

  private List<String> files() throws IOException {
    try (Stream<java.nio.file.Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private byte[] snapshot(long id) throws IOException {
    return Files.readAllBytes(dir.resolve("snapshot-" + id));
  }

  @ParameterizedTest
  @EnumSource(Setup.class)
  void aWriteThatLandsButReportsFailureIsCommittedByReadBack(Setup setup) throws Exception {
    SnapshotCommitter committer = committer(setup, Map.of());
    io.failNextMatching(
        setup.publishes, p -> p.name().equals("snapshot-1"), Fault.LOSE_ANSWER_AFTER_LANDING, 1);
    byte[] ours = content(1);

    assertThat(committer.commit(1, SnapshotContent.of(ours)).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);

    assertThat(io.injected(setup.publishes, Fault.LOSE_ANSWER_AFTER_LANDING)).isEqualTo(1);
    assertThat(snapshot(1)).isEqualTo(ours);
    assertThat(files())
        .as("one snapshot, no second copy, no leftovers besides the hint")
        .containsExactly("LATEST", "snapshot-1");
    assertThat(committer.log().latestId()).hasValue(1);
  }

  @ParameterizedTest
  @EnumSource(Setup.class)
  void aWriteThatFailsBeforeLandingIsRetriedAndCommittedOnce(Setup setup) throws Exception {
    SnapshotCommitter committer = committer(setup, Map.of("commit.write-attempts", "3"));
    io.failNextMatching(
        setup.publishes, p -> p.name().equals("snapshot-1"), Fault.FAIL_BEFORE_LANDING, 2);
    byte[] ours = content(1);

    assertThat(committer.commit(1, SnapshotContent.of(ours)).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);

    assertThat(io.injected(setup.publishes, Fault.FAIL_BEFORE_LANDING)).isEqualTo(2);
    assertThat(snapshot(1)).isEqualTo(ours);
    assertThat(files()).containsExactly("LATEST", "snapshot-1");
  }

  @ParameterizedTest
  @EnumSource(Setup.class)
  void everyAttemptFailingBeforeLandingIsAPlainFailureThatCommittedNothing(Setup setup)
      throws Exception {
    SnapshotCommitter committer = committer(setup, Map.of("commit.write-attempts", "2"));
    io.failNextMatching(
        setup.publishes, p -> p.name().equals("snapshot-1"), Fault.FAIL_BEFORE_LANDING, 2);

    assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(content(1))))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(CommitStateUnknownException.class)
        .hasMessageContaining("nothing was committed")
        .hasMessageContaining("commit.write-attempts");
    assertThat(files()).as("no snapshot and no temporary file left").isEmpty();
  }

  @Test
  void aReadBackThatFailsIsUnknownAndNothingIsCleanedUp() throws Exception {
    SnapshotCommitter committer = committer(Setup.RENAME, Map.of());
    // The rename is sent but its answer is lost, and it never landed; the read-back fails too.
    io.beforeLanding(
        Operation.RENAME,
        (op, path) -> {
          throw new UncertainWriteException(path, "connection reset after sending", null);
        });
    io.failNextMatching(
        Operation.READ, p -> p.name().equals("snapshot-1"), Fault.FAIL_BEFORE_LANDING, 1);

    assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(content(1))))
        .isInstanceOf(CommitStateUnknownException.class)
        .hasMessageContaining("Do not clean up")
        .satisfies(
            e ->
                assertThat(((CommitStateUnknownException) e).snapshotPath())
                    .isEqualTo(committer.log().snapshotPath(1)));

    assertThat(io.calls(Operation.DELETE)).as("no delete after an unknown outcome").isZero();
    assertThat(files())
        .as("the temporary file that may still be renamed stays")
        .singleElement()
        .asString()
        .startsWith(".snapshot-1.")
        .endsWith(".tmp");
  }

  @ParameterizedTest
  @EnumSource(Setup.class)
  void aLandedWriteWhoseReadBackFailsIsUnknownAndStaysInPlace(Setup setup) throws Exception {
    SnapshotCommitter committer = committer(setup, Map.of());
    io.failNextMatching(
        setup.publishes, p -> p.name().equals("snapshot-1"), Fault.LOSE_ANSWER_AFTER_LANDING, 1);
    io.failNextMatching(
        Operation.READ, p -> p.name().equals("snapshot-1"), Fault.FAIL_BEFORE_LANDING, 1);
    byte[] ours = content(1);

    assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(ours)))
        .isInstanceOf(CommitStateUnknownException.class);

    assertThat(io.calls(Operation.DELETE)).isZero();
    assertThat(snapshot(1)).as("the landed snapshot is left as it is").isEqualTo(ours);
  }

  @Test
  void uncertainOnEveryAttemptAndNeverLandedIsUnknownNotFailure() throws Exception {
    SnapshotCommitter committer =
        committer(Setup.ATOMIC_CREATE, Map.of("commit.write-attempts", "3"));
    io.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          throw new UncertainWriteException(path, "request timed out", null);
        });

    assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(content(1))))
        .isInstanceOf(CommitStateUnknownException.class)
        .hasCauseInstanceOf(UncertainWriteException.class);
    assertThat(io.calls(Operation.CREATE)).isEqualTo(3);
    assertThat(files()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Setup.class)
  void anotherWritersSnapshotIsAConflictAndStaysIntact(Setup setup) throws Exception {
    SnapshotCommitter committer = committer(setup, Map.of());
    byte[] theirs = content(1);
    new LocalFileIO().createAtomically(committer.log().snapshotPath(1), theirs);

    assertThat(committer.commit(1, SnapshotContent.of(content(1))).outcome())
        .isEqualTo(CommitOutcome.CONFLICT);

    assertThat(snapshot(1)).isEqualTo(theirs);
    assertThat(files()).as("our attempt left nothing behind").containsExactly("snapshot-1");
  }

  @ParameterizedTest
  @EnumSource(Setup.class)
  void reCommittingOurOwnLandedSnapshotIsIdempotent(Setup setup) throws Exception {
    // As when a retried S3 PUT answers 412 for our own first attempt.
    SnapshotCommitter committer = committer(setup, Map.of());
    byte[] ours = content(1);
    new LocalFileIO().createAtomically(committer.log().snapshotPath(1), ours);

    assertThat(committer.commit(1, SnapshotContent.of(ours)).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);
    assertThat(snapshot(1)).isEqualTo(ours);
  }
}
