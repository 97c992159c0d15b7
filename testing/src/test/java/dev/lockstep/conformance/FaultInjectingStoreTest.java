package dev.lockstep.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultInjectingStoreTest {

  @TempDir java.nio.file.Path dir;
  private final LocalFileIO local = new LocalFileIO();

  private Path path(String name) {
    return Path.of(dir.toString()).child(name);
  }

  private static void write(FileIO io, Path path, String text) throws IOException {
    try (OutputStream out = io.newOutputStream(path, false)) {
      out.write(text.getBytes(UTF_8));
    }
  }

  @Test
  void wrappersKeepExactlyTheDelegatesCapabilities() {
    assertThat(FaultInjectingStore.wrap(local))
        .isInstanceOf(SupportsAtomicCreate.class)
        .isInstanceOf(SupportsAtomicRename.class);
    assertThat(FaultInjectingStore.wrap(CapabilityHidingFileIO.atomicCreateOnly(local)))
        .isInstanceOf(SupportsAtomicCreate.class)
        .isNotInstanceOf(SupportsAtomicRename.class);
    assertThat(FaultInjectingStore.wrap(CapabilityHidingFileIO.atomicRenameOnly(local)))
        .isInstanceOf(SupportsAtomicRename.class)
        .isNotInstanceOf(SupportsAtomicCreate.class);
    assertThat(FaultInjectingStore.wrap(new CapabilityHidingFileIO(local)))
        .isNotInstanceOf(SupportsAtomicCreate.class)
        .isNotInstanceOf(SupportsAtomicRename.class);
    assertThat(new CapabilityHidingFileIO(local))
        .isNotInstanceOf(SupportsAtomicCreate.class)
        .isNotInstanceOf(SupportsAtomicRename.class);
  }

  @Test
  void failBeforeLandingChangesNothing() throws IOException {
    FaultInjectingStore io =
        FaultInjectingStore.wrap(local)
            .failNext(Operation.CREATE, Fault.FAIL_BEFORE_LANDING)
            .failNext(Operation.WRITE, Fault.FAIL_BEFORE_LANDING);

    assertThatThrownBy(() -> ((SupportsAtomicCreate) io).createAtomically(path("c"), new byte[1]))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(UncertainWriteException.class);
    assertThatThrownBy(() -> write(io, path("w"), "x"))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(UncertainWriteException.class);

    assertThat(Files.list(dir)).isEmpty();
    assertThat(io.injected(Operation.CREATE, Fault.FAIL_BEFORE_LANDING)).isEqualTo(1);
    assertThat(io.injected()).isEqualTo(2);
    ((SupportsAtomicCreate) io).createAtomically(path("c"), new byte[1]); // the fault was used up
    assertThat(io.calls(Operation.CREATE)).isEqualTo(2);
  }

  @Test
  void loseAnswerLandsTheChangeAndThrowsUncertain() throws IOException {
    FaultInjectingStore io =
        FaultInjectingStore.wrap(local)
            .failNext(Operation.CREATE, Fault.LOSE_ANSWER_AFTER_LANDING)
            .failNext(Operation.WRITE, Fault.LOSE_ANSWER_AFTER_LANDING)
            .failNext(Operation.RENAME, Fault.LOSE_ANSWER_AFTER_LANDING);

    assertThatThrownBy(
            () -> ((SupportsAtomicCreate) io).createAtomically(path("c"), "c".getBytes(UTF_8)))
        .isInstanceOf(UncertainWriteException.class);
    assertThatThrownBy(() -> write(io, path("w"), "w")).isInstanceOf(UncertainWriteException.class);
    assertThatThrownBy(() -> ((SupportsAtomicRename) io).renameAtomically(path("w"), path("r")))
        .isInstanceOf(UncertainWriteException.class);

    assertThat(Files.readString(dir.resolve("c"))).isEqualTo("c");
    assertThat(Files.readString(dir.resolve("r"))).isEqualTo("w");
    assertThat(io.injected(Operation.RENAME, Fault.LOSE_ANSWER_AFTER_LANDING)).isEqualTo(1);
  }

  @Test
  void aConflictPassesThroughUnchangedEvenWhenALostAnswerIsArmed() throws IOException {
    FaultInjectingStore io = FaultInjectingStore.wrap(local);
    local.createAtomically(path("c"), new byte[] {1});
    io.failNext(Operation.CREATE, Fault.LOSE_ANSWER_AFTER_LANDING);

    assertThatThrownBy(() -> ((SupportsAtomicCreate) io).createAtomically(path("c"), new byte[2]))
        .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    assertThat(io.injected()).isZero();
  }

  @Test
  void seededRandomFaultsReplayExactly() throws IOException {
    long[] counts = new long[2];
    for (int run = 0; run < 2; run++) {
      FaultInjectingStore io =
          FaultInjectingStore.wrap(local)
              .failRandomly(Operation.EXISTS, Fault.FAIL_BEFORE_LANDING, 0.3, 1234);
      StringBuilder pattern = new StringBuilder();
      for (int i = 0; i < 200; i++) {
        try {
          io.exists(path("x"));
          pattern.append('.');
        } catch (IOException e) {
          pattern.append('X');
        }
      }
      counts[run] = pattern.toString().hashCode();
      assertThat(io.injected(Operation.EXISTS, Fault.FAIL_BEFORE_LANDING)).isBetween(30L, 90L);
    }
    assertThat(counts[0]).isEqualTo(counts[1]);
  }

  @Test
  void readsCanFailButCannotLoseAnAnswer() throws IOException {
    write(local, path("f"), "x");
    FaultInjectingStore io =
        FaultInjectingStore.wrap(local)
            .failNextMatching(
                Operation.READ, p -> p.name().equals("f"), Fault.FAIL_BEFORE_LANDING, 1);

    assertThatThrownBy(() -> io.newInputStream(path("f"))).hasMessageContaining("Injected");
    io.newInputStream(path("f")).close();
    assertThatThrownBy(() -> io.failNext(Operation.READ, Fault.LOSE_ANSWER_AFTER_LANDING))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("FAIL_BEFORE_LANDING");
  }

  @Test
  void loseAnyAnswerLosesARefusalToo() throws IOException {
    local.createAtomically(path("c"), new byte[] {1});
    FaultInjectingStore io =
        FaultInjectingStore.wrap(local).failNext(Operation.CREATE, Fault.LOSE_ANY_ANSWER, 2);

    assertThatThrownBy(() -> ((SupportsAtomicCreate) io).createAtomically(path("c"), new byte[2]))
        .isInstanceOf(UncertainWriteException.class)
        .hasCauseInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    assertThatThrownBy(() -> ((SupportsAtomicCreate) io).createAtomically(path("d"), new byte[3]))
        .isInstanceOf(UncertainWriteException.class);

    assertThat(Files.readAllBytes(dir.resolve("c"))).containsExactly(1);
    assertThat(Files.readAllBytes(dir.resolve("d"))).containsExactly(0, 0, 0);
    assertThat(io.injected(Operation.CREATE, Fault.LOSE_ANY_ANSWER)).isEqualTo(2);
    assertThat(io.answersLost()).isEqualTo(2);
    assertThat(io.failedBefore()).isZero();
  }

  @Test
  void aPlanDecidesAfterTheArmedRulesAndALostReadFailsBefore() throws IOException {
    write(local, path("snapshot-1"), "x");
    FaultPlan readsLoseAnswers =
        (operation, path) -> operation == Operation.READ ? Fault.LOSE_ANY_ANSWER : null;
    FaultInjectingStore io =
        FaultInjectingStore.wrap(
                local, FaultPlan.nextWrites("snapshot-", 1, Fault.FAIL_BEFORE_LANDING))
            .plan(readsLoseAnswers)
            .failNext(Operation.WRITE, Fault.LOSE_ANSWER_AFTER_LANDING);

    // The armed rule takes the first write; the plan's write fault the second; the third passes.
    assertThatThrownBy(() -> write(io, path("snapshot-2"), "a"))
        .isInstanceOf(UncertainWriteException.class);
    assertThatThrownBy(() -> write(io, path("snapshot-3"), "b"))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(UncertainWriteException.class);
    write(io, path("snapshot-4"), "c");
    assertThat(Files.exists(dir.resolve("snapshot-2"))).isTrue();
    assertThat(Files.exists(dir.resolve("snapshot-3"))).isFalse();
    assertThat(Files.readString(dir.resolve("snapshot-4"))).isEqualTo("c");

    // A read cannot lose an answer: the plan's lost answer fails it before it reaches the store.
    assertThatThrownBy(() -> io.newInputStream(path("snapshot-1")))
        .isNotInstanceOf(UncertainWriteException.class)
        .hasMessageContaining("Injected failure before landing");
    assertThat(io.injected(Operation.READ, Fault.FAIL_BEFORE_LANDING)).isEqualTo(1);
    assertThat(io.failedBefore()).isEqualTo(2);
    assertThat(io.answersLost()).isEqualTo(1);
    assertThat(io.injectedSummary())
        .isEqualTo("2 calls failed before reaching the store, 1 answers lost");
  }

  @Test
  void aWriteThatFailsBeforeLandingFailsAtCloseAndLeavesNothing() throws IOException {
    FaultInjectingStore io =
        FaultInjectingStore.wrap(local).failNext(Operation.WRITE, Fault.FAIL_BEFORE_LANDING);
    OutputStream out = io.newOutputStream(path("w"), false);
    out.write('x');
    assertThat(Files.exists(dir.resolve("w"))).isFalse();
    assertThatThrownBy(out::close)
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(UncertainWriteException.class);
    assertThat(Files.exists(dir.resolve("w"))).isFalse();
    out.close(); // a second close does nothing
  }
}
