package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.io.OutputStream;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LATEST and EARLIEST are hints: readers verify them and fall back to listing. */
class SnapshotLogTest {

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
      ((dev.lockstep.fs.SupportsAtomicCreate) io)
          .createAtomically(log.snapshotPath(id), ("snapshot " + id).getBytes(UTF_8));
    }
  }

  private void rawHint(String name, String text) throws IOException {
    try (OutputStream out = io.newOutputStream(log.directory().child(name), true)) {
      out.write(text.getBytes(UTF_8));
    }
  }

  @Test
  void anEmptyTableHasNeitherLatestNorEarliest() throws IOException {
    assertThat(log.latestId()).isEmpty();
    assertThat(log.earliestId()).isEmpty();
    assertThat(log.listIds()).isEmpty();
  }

  @Test
  void aCurrentHintIsVerifiedWithoutListing() throws IOException {
    snapshots(1, 3);
    log.writeLatestHint(3);

    assertThat(log.latestId()).hasValue(3);
    assertThat(io.calls(Operation.LIST)).isZero();
  }

  @Test
  void aStaleHintIsWalkedForwardToTheRealLatest() throws IOException {
    snapshots(1, 6);
    log.writeLatestHint(2);

    assertThat(log.latestId()).hasValue(6);
    assertThat(io.calls(Operation.LIST)).isZero();
  }

  @Test
  void aHintFarBehindFallsBackToListing() throws IOException {
    snapshots(1, 40);
    log.writeLatestHint(1);

    assertThat(log.latestId()).hasValue(40);
  }

  @Test
  void aHintNamingAMissingSnapshotFallsBackToListing() throws IOException {
    snapshots(1, 3);
    log.writeLatestHint(9);

    assertThat(log.latestId()).hasValue(3);
    assertThat(io.calls(Operation.LIST)).isEqualTo(1);
  }

  @Test
  void aCorruptEmptyOrMissingHintFallsBackToListing() throws IOException {
    snapshots(1, 4);
    assertThat(log.latestId()).as("missing").hasValue(4);
    rawHint("LATEST", "not-a-number");
    assertThat(log.latestId()).as("corrupt").hasValue(4);
    rawHint("LATEST", "");
    assertThat(log.latestId()).as("empty").hasValue(4);
    rawHint("LATEST", "-3");
    assertThat(log.latestId()).as("negative").hasValue(4);
  }

  @Test
  void anUnreadableHintFallsBackToListing() throws IOException {
    snapshots(1, 2);
    log.writeLatestHint(2);
    io.failNextMatching(
        Operation.READ, p -> p.name().equals("LATEST"), FaultPlan.Fault.FAIL_BEFORE_LANDING, 1);

    assertThat(log.latestId()).hasValue(2);
  }

  @Test
  void earliestHintIsTrustedOnlyWhenNothingOlderExists() throws IOException {
    snapshots(1, 5);
    log.writeEarliestHint(1);
    assertThat(log.earliestId()).hasValue(1);

    io.delete(log.snapshotPath(1), false);
    io.delete(log.snapshotPath(2), false);
    assertThat(log.earliestId()).as("hint names an expired snapshot").hasValue(3);

    log.writeEarliestHint(4);
    assertThat(log.earliestId()).as("hint ahead of the real earliest").hasValue(3);

    log.writeEarliestHint(3);
    assertThat(log.earliestId()).hasValue(3);
  }

  @Test
  void listingIgnoresHintsTemporaryFilesAndOtherNames() throws IOException {
    snapshots(1, 2);
    log.writeLatestHint(2);
    rawHint(".snapshot-3.0f1e.tmp", "temp");
    rawHint("snapshot-", "no id");
    rawHint("snapshot-x1", "not digits");
    rawHint("snapshot-0", "ids start at 1");
    io.mkdirs(log.directory().child("snapshot-7"));

    assertThat(log.listIds()).containsExactly(1L, 2L);
    assertThat(log.latestId()).isEqualTo(OptionalLong.of(2));
  }
}
