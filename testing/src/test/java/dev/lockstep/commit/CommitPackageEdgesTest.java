package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edges of the commit package that mutation testing (scripts/mutation) found unchecked: the
 * snapshot file names, the hints' bounds, the rename publisher's clean-up, and the small value
 * types every commit path consults.
 */
class CommitPackageEdgesTest {

  @TempDir java.nio.file.Path dir;
  private FaultInjectingStore io;
  private SnapshotLog log;

  @BeforeEach
  void setUp() {
    io = FaultInjectingStore.wrap(new LocalFileIO());
    log = new SnapshotLog(io, Path.of(dir.toString()).child("snapshot"));
  }

  private void snapshots(long from, long to) throws IOException {
    for (long id = from; id <= to; id++) {
      ((SupportsAtomicCreate) io)
          .createAtomically(log.snapshotPath(id), ("snapshot " + id).getBytes(UTF_8));
    }
  }

  private void rawHint(String name, String text) throws IOException {
    try (OutputStream out = io.newOutputStream(log.directory().child(name), true)) {
      out.write(text.getBytes(UTF_8));
    }
  }

  @Test
  void onlySnapshotDashDigitsIsASnapshotId() {
    assertThat(SnapshotLog.parseId("snapshot-12")).isEqualTo(12);
    assertThat(SnapshotLog.parseId("snapshot-1")).isEqualTo(1);
    assertThat(SnapshotLog.parseId("snapshot-")).isEqualTo(-1);
    assertThat(SnapshotLog.parseId("snapshot-1a")).isEqualTo(-1);
    assertThat(SnapshotLog.parseId("snapshot--1")).isEqualTo(-1);
    assertThat(SnapshotLog.parseId("snapshot-+1")).isEqualTo(-1);
    assertThat(SnapshotLog.parseId("manifest-1")).isEqualTo(-1);
    assertThat(SnapshotLog.parseId("snapshot-99999999999999999999")).isEqualTo(-1);
  }

  @Test
  void aLatestHintIsWalkedAtMostSixteenStepsThenTheDirectoryIsListed() throws IOException {
    // Hint 1, snapshots 1..17: sixteen steps reach 17 without seeing its end, so the log lists.
    snapshots(1, 17);
    log.writeLatestHint(1);
    assertThat(log.latestId()).hasValue(17);
    assertThat(io.calls(Operation.LIST)).isEqualTo(1);

    FaultInjectingStore fresh = FaultInjectingStore.wrap(new LocalFileIO());
    SnapshotLog near = new SnapshotLog(fresh, log.directory());
    near.writeLatestHint(2);
    assertThat(near.latestId()).hasValue(17);
    assertThat(fresh.calls(Operation.LIST)).isZero();
  }

  @Test
  void aZeroHintIsNoHintAndIsNotLookedUp() throws IOException {
    snapshots(1, 2);
    rawHint(SnapshotLog.LATEST, "0");
    rawHint(SnapshotLog.EARLIEST, "0");
    assertThat(log.latestId()).hasValue(2);
    assertThat(log.earliestId()).hasValue(1);
    assertThat(io.calls(Operation.EXISTS)).isZero();
  }

  @Test
  void anEarliestHintWithAnOlderSnapshotBelowItIsNotTaken() throws IOException {
    snapshots(2, 3);
    log.writeEarliestHint(3);
    assertThat(log.earliestId()).hasValue(2);
  }

  @Test
  void theEarliestHintIsWrittenAndTakenWithoutListing() throws IOException {
    snapshots(4, 6);
    log.writeEarliestHint(4);
    assertThat(Files.readString(dir.resolve("snapshot").resolve(SnapshotLog.EARLIEST)))
        .isEqualTo("4");
    assertThat(log.earliestId()).hasValue(4);
    assertThat(io.calls(Operation.LIST)).isZero();
  }

  private long tempFiles() throws IOException {
    try (Stream<java.nio.file.Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).count();
    }
  }

  @Test
  void theRenamePublisherPublishesAndLeavesNoTemporaryFile() throws IOException {
    RenamePublisher publisher = new RenamePublisher((SupportsAtomicRename) io);
    Path target = Path.of(dir.toString()).child("snapshot-1");
    publisher.publish(target, "one".getBytes(UTF_8));
    assertThat(Files.readString(dir.resolve("snapshot-1"))).isEqualTo("one");
    assertThat(tempFiles()).isZero();
    assertThat(publisher.describe()).isEqualTo("rename");
  }

  @Test
  void aFailedTemporaryWriteIsDeletedAndTheFailureThrown() throws IOException {
    RenamePublisher publisher = new RenamePublisher((SupportsAtomicRename) io);
    Path target = Path.of(dir.toString()).child("snapshot-1");
    io.failNext(Operation.WRITE, Fault.LOSE_ANSWER_AFTER_LANDING);
    assertThatThrownBy(() -> publisher.publish(target, "one".getBytes(UTF_8)))
        .isInstanceOf(IOException.class);
    assertThat(tempFiles()).isZero();
    assertThat(dir.resolve("snapshot-1")).doesNotExist();
  }

  @Test
  void aFailedCleanUpIsSuppressedUnderTheFailure() throws IOException {
    RenamePublisher publisher = new RenamePublisher((SupportsAtomicRename) io);
    Path target = Path.of(dir.toString()).child("snapshot-1");
    io.failNext(Operation.WRITE, Fault.LOSE_ANSWER_AFTER_LANDING);
    io.failNext(Operation.DELETE, Fault.FAIL_BEFORE_LANDING);
    assertThatThrownBy(() -> publisher.publish(target, "one".getBytes(UTF_8)))
        .isInstanceOf(IOException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
  }

  @Test
  void onlyAnExistingTargetIsARenameConflict() {
    assertThat(RenamePublisher.isConflict(new FileAlreadyExistsException("snapshot-1"))).isTrue();
    assertThat(RenamePublisher.isConflict(new IOException("disk full"))).isFalse();
  }

  @Test
  void theRenameStrategyResolvesToTheRenamePublisher() {
    CommitOptions options =
        CommitOptions.from(java.util.Map.of(CommitOptions.COMMIT_STRATEGY, "rename"));
    SnapshotPublisher publisher = SnapshotCommitter.resolve(io, options, null, "t");
    assertThat(publisher).isInstanceOf(RenamePublisher.class);
    assertThat(publisher.describe()).isEqualTo("rename");
  }

  @Test
  void strategiesParseTrimmedAndCaseBlindAndPrintTheirValue() {
    assertThat(CommitStrategy.parse(" Atomic-Create ")).isEqualTo(CommitStrategy.ATOMIC_CREATE);
    assertThat(CommitStrategy.parse("rename")).isEqualTo(CommitStrategy.RENAME);
    assertThat(CommitStrategy.RENAME).hasToString("rename");
    assertThatThrownBy(() -> CommitStrategy.parse("renmae"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'renmae'")
        .hasMessageContaining("atomic-create");
  }

  @Test
  void onlyACommittedAttemptIsCommitted() {
    assertThat(new CommitAttempt(CommitOutcome.COMMITTED, false).committed()).isTrue();
    assertThat(new CommitAttempt(CommitOutcome.CONFLICT, true).committed()).isFalse();
  }

  @Test
  void anEqualTokenIsNotOlder() {
    FencingToken five = new FencingToken("lock", 5);
    assertThat(five.isOlderThan(new FencingToken("lock", 5))).isFalse();
    assertThat(five.isOlderThan(new FencingToken("lock", 6))).isTrue();
    assertThat(five.isOlderThan(new FencingToken("other", 6))).isFalse();
  }

  @Test
  void aFencedCommitNamesTheSnapshotItDidNotWrite() {
    Path ours = Path.of(dir.toString()).child("snapshot-7");
    Path newer = Path.of(dir.toString()).child("snapshot-6");
    FencedCommitException e =
        new FencedCommitException(ours, new FencingToken("l", 1), newer, new FencingToken("l", 2));
    assertThat(e.snapshotPath()).isEqualTo(ours);
    assertThat(e.newerSnapshot()).isEqualTo(newer);
    assertThat(e.ours().token()).isEqualTo(1);
    assertThat(e.newer().token()).isEqualTo(2);
  }

  @Test
  void anUnavailableStrategyNamesTheStore() {
    dev.lockstep.fs.FileIO renameOnly =
        dev.lockstep.testing.CapabilityHidingFileIO.atomicRenameOnly(new LocalFileIO());
    CommitOptions options =
        CommitOptions.from(java.util.Map.of(CommitOptions.COMMIT_STRATEGY, "atomic-create"));
    assertThatThrownBy(() -> SnapshotCommitter.resolve(renameOnly, options, null, "t"))
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("the store " + renameOnly.getClass().getSimpleName() + " has none");
  }
}
