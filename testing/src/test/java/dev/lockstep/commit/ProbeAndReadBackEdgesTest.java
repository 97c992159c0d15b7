package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.RemoteCreateFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edges of the lock-free commit path that mutation testing (scripts/mutation) found unchecked:
 * the atomic-create probe over a store whose creates lose their answers or fail, and the read-back
 * of a commit whose write was uncertain or whose read-back fails. Real local store with injected
 * faults.
 */
class ProbeAndReadBackEdgesTest {

  private static final String KEY = "db.t";

  @TempDir java.nio.file.Path dir;
  private final String endpoint = "test://endpoint-" + UUID.randomUUID();

  @AfterEach
  void forget() {
    AtomicCreateProbe.forgetVerdicts();
  }

  private Path warehouse() {
    return Path.of(dir.toString()).child("warehouse");
  }

  private Path snapshots() {
    return warehouse().child("db.db").child("t").child("snapshot");
  }

  private SnapshotCommitter probing(RemoteCreateFileIO store) throws IOException {
    return SnapshotCommitter.builder(store, snapshots(), KEY)
        .options(Map.of("warehouse", warehouse().toString()))
        .open();
  }

  private long probeObjects() throws IOException {
    java.nio.file.Path probes = dir.resolve("warehouse").resolve(AtomicCreateProbe.DIRECTORY);
    if (!Files.exists(probes)) {
      return 0;
    }
    try (Stream<java.nio.file.Path> files = Files.walk(probes)) {
      return files
          .filter(Files::isRegularFile)
          .filter(f -> !f.toString().endsWith(".passed"))
          .count();
    }
  }

  @Test
  void createsWhoseAnswersAreLostAreJudgedByWhatTheKeyHolds() throws Exception {
    // Every create of the probe lands or is refused, and its answer is lost: all uncertain. The
    // key holds one contender's bytes each round: atomic.
    FaultInjectingStore faults = FaultInjectingStore.wrap(new LocalFileIO());
    faults.failNext(
        Operation.CREATE,
        Fault.LOSE_ANY_ANSWER,
        AtomicCreateProbe.ROUNDS * AtomicCreateProbe.CONTENDERS);
    RemoteCreateFileIO store = RemoteCreateFileIO.atomic((SupportsAtomicCreate) faults, endpoint);
    try (SnapshotCommitter committer = probing(store)) {
      assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
    }
    assertThat(faults.injected(Operation.CREATE, Fault.LOSE_ANY_ANSWER))
        .isEqualTo((long) AtomicCreateProbe.ROUNDS * AtomicCreateProbe.CONTENDERS);
    assertThat(probeObjects()).as("every probe object deleted").isZero();
  }

  @Test
  void aWinnerWhoseAnswerIsLostIsStillTheOnlyWinner() throws Exception {
    // The winning create of each round lands and loses its answer; the others are refused.
    FaultInjectingStore faults = FaultInjectingStore.wrap(new LocalFileIO());
    faults.failNext(
        Operation.CREATE,
        Fault.LOSE_ANSWER_AFTER_LANDING,
        AtomicCreateProbe.ROUNDS * AtomicCreateProbe.CONTENDERS);
    RemoteCreateFileIO store = RemoteCreateFileIO.atomic((SupportsAtomicCreate) faults, endpoint);
    try (SnapshotCommitter committer = probing(store)) {
      assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
    }
  }

  @Test
  void aStoreWhoseCreatesFailCannotBeDecidedAndNothingIsCommitted() throws Exception {
    FaultInjectingStore faults = FaultInjectingStore.wrap(new LocalFileIO());
    // Every create fails before reaching the store, on every write attempt.
    faults.failNext(Operation.CREATE, Fault.FAIL_BEFORE_LANDING, 1_000);
    RemoteCreateFileIO store = RemoteCreateFileIO.atomic((SupportsAtomicCreate) faults, endpoint);
    try (SnapshotCommitter committer = probing(store)) {
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))))
          .isInstanceOf(SnapshotNotPublishedException.class)
          .hasMessageContaining("nothing was committed")
          .cause()
          .hasMessageContaining("The atomic-create probe of " + endpoint + " could not create");
      assertThat(committer.log().listIds()).isEmpty();
      faults.clearFaults();
      // Not cached as a verdict: the next commit probes again, and passes.
      assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
    }
    assertThat(probeObjects()).isZero();
  }

  @Test
  void theProbesThreadsDoNotKeepTheJvmAlive() throws Exception {
    FaultInjectingStore faults = FaultInjectingStore.wrap(new LocalFileIO());
    List<Boolean> daemon = new java.util.concurrent.CopyOnWriteArrayList<>();
    faults.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.toString().contains("round-")) {
            daemon.add(Thread.currentThread().isDaemon());
          }
        });
    try (SnapshotCommitter committer =
        probing(RemoteCreateFileIO.atomic((SupportsAtomicCreate) faults, endpoint))) {
      assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).committed())
          .isTrue();
    }
    assertThat(daemon).hasSize(AtomicCreateProbe.ROUNDS * AtomicCreateProbe.CONTENDERS);
    assertThat(daemon).containsOnly(true);
  }

  @Test
  void anotherEndpointsRecordIsNotThisOnes() throws Exception {
    // A record file naming another endpoint under this one's record name (a hash collision, or a
    // hand-copied file) is not a pass: the probe races.
    RemoteCreateFileIO store =
        RemoteCreateFileIO.atomic(
            (SupportsAtomicCreate) FaultInjectingStore.wrap(new LocalFileIO()), endpoint);
    java.nio.file.Path record =
        dir.resolve("warehouse")
            .resolve(AtomicCreateProbe.DIRECTORY)
            .resolve(AtomicCreateProbe.recordName(endpoint));
    Files.createDirectories(record.getParent());
    Files.writeString(record, "endpoint=test://another\nverdict=atomic\n");
    try (SnapshotCommitter committer = probing(store)) {
      assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).committed())
          .isTrue();
    }
    assertThat(store.creates())
        .as("the probe raced")
        .isGreaterThan((long) AtomicCreateProbe.ROUNDS * AtomicCreateProbe.CONTENDERS);
  }

  @Test
  void createsThatAllLoseTheirAnswersWithoutLandingCannotBeDecided() throws Exception {
    FaultInjectingStore faults = FaultInjectingStore.wrap(new LocalFileIO());
    faults.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().startsWith("round-")) {
            throw new UncertainWriteException(path, "request lost", null);
          }
        });
    try (SnapshotCommitter committer =
        probing(RemoteCreateFileIO.atomic((SupportsAtomicCreate) faults, endpoint))) {
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))))
          .isInstanceOf(SnapshotNotPublishedException.class)
          .cause()
          .hasMessageContaining("could not decide")
          .hasMessageContaining("(" + AtomicCreateProbe.CONTENDERS + " uncertain)");
      assertThat(committer.log().listIds()).isEmpty();
    }
  }

  @Test
  void aProbeObjectWhoseDeleteFailsOnceIsDeletedOnTheSecondTry() throws Exception {
    FaultInjectingStore faults = FaultInjectingStore.wrap(new LocalFileIO());
    faults.failNextMatching(
        Operation.DELETE, path -> path.name().startsWith("round-"), Fault.FAIL_BEFORE_LANDING, 1);
    try (SnapshotCommitter committer =
        probing(RemoteCreateFileIO.atomic((SupportsAtomicCreate) faults, endpoint))) {
      assertThat(committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))).committed())
          .isTrue();
    }
    assertThat(faults.injected(Operation.DELETE, Fault.FAIL_BEFORE_LANDING)).isEqualTo(1);
    assertThat(probeObjects()).isZero();
  }

  @Test
  void anInterruptAfterAnUncertainWriteIsUnknownNotRetried() throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    store.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1")) {
            Thread.currentThread().interrupt();
            throw new UncertainWriteException(path, "connection reset, request lost", null);
          }
        });
    try (SnapshotCommitter committer = lockFree(store)) {
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))))
          .isInstanceOf(CommitStateUnknownException.class);
      assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
    }
    assertThat(store.calls(Operation.CREATE)).as("not written again").isEqualTo(1);
  }

  private SnapshotCommitter lockFree(FaultInjectingStore store) {
    return SnapshotCommitter.builder(store, Path.of(dir.toString()), KEY)
        .options(CommitOptions.from(Map.of("commit.strategy", "atomic-create")))
        .build();
  }

  @Test
  void anUncertainWriteWithANewerSnapshotPresentIsUnknownNotWrittenAgain() throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    SnapshotLog log = new SnapshotLog(store, Path.of(dir.toString()));
    ((SupportsAtomicCreate) store).createAtomically(log.snapshotPath(1), "one".getBytes(UTF_8));
    ((SupportsAtomicCreate) store).createAtomically(log.snapshotPath(3), "three".getBytes(UTF_8));
    // The write of snapshot-2 is sent, does not land, and its answer is lost.
    store.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-2")) {
            throw new UncertainWriteException(path, "connection reset, request lost", null);
          }
        });
    try (SnapshotCommitter committer = lockFree(store)) {
      assertThatThrownBy(() -> committer.commit(2, SnapshotContent.of("two".getBytes(UTF_8))))
          .isInstanceOf(CommitStateUnknownException.class)
          .hasStackTraceContaining("a newer snapshot exists");
    }
    assertThat(dir.resolve("snapshot-2")).doesNotExist();
  }

  @Test
  void anUncertainWriteWhoseListingFailsIsUnknownNotWrittenAgain() throws Exception {
    // Absent after an uncertain write, and the listing that would tell whether a newer snapshot
    // exists fails: counted as "one may", so the commit is unknown rather than written again.
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    store.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (path.name().equals("snapshot-1")) {
            throw new UncertainWriteException(path, "connection reset, request lost", null);
          }
        });
    store.failNext(Operation.LIST, Fault.FAIL_BEFORE_LANDING);
    try (SnapshotCommitter committer = lockFree(store)) {
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))))
          .isInstanceOf(CommitStateUnknownException.class)
          .hasStackTraceContaining("a newer snapshot exists");
    }
    assertThat(store.injected(Operation.LIST, Fault.FAIL_BEFORE_LANDING)).isEqualTo(1);
    assertThat(store.calls(Operation.CREATE)).as("not written again").isEqualTo(1);
    assertThat(dir.resolve("snapshot-1")).doesNotExist();
  }

  @Test
  void aFailedReadBackIsUnknownAndKeepsTheWriteFailure() throws Exception {
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    store.failNext(Operation.CREATE, Fault.FAIL_BEFORE_LANDING);
    store.failNext(Operation.READ, Fault.FAIL_BEFORE_LANDING);
    try (SnapshotCommitter committer = lockFree(store)) {
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of("one".getBytes(UTF_8))))
          .isInstanceOfSatisfying(
              CommitStateUnknownException.class,
              e -> {
                assertThat(e.getCause()).isInstanceOf(IOException.class);
                assertThat(e.getCause().getSuppressed()).hasSize(1);
                assertThat(e.getCause().getSuppressed()[0].getMessage()).contains("snapshot-1");
              });
    }
  }
}
