package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lockstep.commit.CommitStrategyUnavailableException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.conformance.Race.Outcome;
import dev.lockstep.conformance.Race.Result;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicRename;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Atomic rename ({@link Capability#ATOMIC_RENAME}): {@link SupportsAtomicRename#renameAtomically}
 * never replaces an existing target, atomically.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class AtomicRenameContract extends ConformanceContract {

  /**
   * Declared present: the store implements {@link SupportsAtomicRename}. Declared absent: it does
   * not, and the commit protocol refuses {@code commit.strategy=rename} with a clear error.
   */
  @Test
  @Order(1)
  @Proves(
      "The atomic-rename declaration matches the store (SupportsAtomicRename); when absent,"
          + " commit.strategy=rename is refused.")
  public final void atomicRenameDeclarationMatchesStore() throws IOException {
    boolean declared = declaration(Capability.ATOMIC_RENAME);
    if (!declaration(Capability.STORE_BASICS)) {
      assertThat(declared)
          .as(
              "atomic-rename is declared present, but store-basics is declared absent: a capability"
                  + " of the store needs a store under test")
          .isFalse();
      return; // no store: the capability is absent, and StoreContract checks that no store opens
    }
    FileIO store = openStore();
    if (declared) {
      assertThat(store)
          .as("atomic-rename is declared, so the store must implement" + " SupportsAtomicRename")
          .isInstanceOf(SupportsAtomicRename.class);
      return;
    }
    assertThat(store)
        .as(
            "atomic-rename is declared absent, yet the store implements"
                + " SupportsAtomicRename: declare it present (and prove it)")
        .isNotInstanceOf(SupportsAtomicRename.class);
    assertThat(
            catchThrowable(
                () ->
                    SnapshotCommitter.builder(store, checkDirectory(), "conformance.rename")
                        .options(Map.of("commit.strategy", "rename"))
                        .open()))
        .as("commit.strategy=rename on a store without it must be refused")
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("atomic rename");
  }

  /**
   * Many contenders each write their own source file, start on a barrier and rename it onto the
   * same target, round after round: exactly one wins, the others see {@link
   * FileAlreadyExistsException} and keep their source, and the target holds the winner's bytes
   * whole.
   */
  @Test
  @Order(2)
  @Proves(
      "Contenders racing on a barrier to rename onto one target: exactly one wins each round, its"
          + " bytes are whole, losers keep their source.")
  public final void exactlyOneRenameWinsEachRound() throws Exception {
    requirePresent(Capability.ATOMIC_RENAME);
    int contenders = settings().contenders();
    List<SupportsAtomicRename> clients = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      clients.add(atomicRenameStore());
    }
    FileIO checker = openStore();
    try (Race race = new Race(contenders, settings().scaled(Duration.ofSeconds(60)))) {
      for (int round = 0; round < settings().rounds(); round++) {
        Path dir = checkDirectory().child("round-" + round);
        Path target = dir.child("snapshot-1");
        byte[][] payloads = new byte[contenders][];
        for (int i = 0; i < contenders; i++) {
          payloads[i] = AtomicCreateContract.payload(round, i);
          StoreContract.write(clients.get(i), dir.child("source-" + i), payloads[i], false);
        }
        List<Result> results =
            race.round(i -> clients.get(i).renameAtomically(dir.child("source-" + i), target));
        byte[] found = StoreContract.read(checker, target);
        AtomicCreateContract.assertOneWinner(
            "round " + round, results, payloads, found, checker, dir);
        for (Result r : results) {
          boolean sourceLeft = checker.exists(dir.child("source-" + r.contender()));
          if (r.outcome() == Outcome.CONFLICT) {
            assertThat(sourceLeft)
                .as(
                    "round %d: loser #%d's source must still be there; %s",
                    round, r.contender(), listing(checker, dir))
                .isTrue();
          } else if (r.outcome() == Outcome.WON) {
            assertThat(sourceLeft)
                .as("round %d: the winner's source must be gone; %s", round, listing(checker, dir))
                .isFalse();
          }
        }
      }
    }
  }

  private SupportsAtomicRename atomicRenameStore() throws IOException {
    FileIO store = openStore();
    assertThat(store)
        .as("atomic-rename is declared, so the store must implement" + " SupportsAtomicRename")
        .isInstanceOf(SupportsAtomicRename.class);
    return (SupportsAtomicRename) store;
  }

  /** Renaming onto an existing target fails, leaving target and source untouched. */
  @Test
  @Order(3)
  @Proves(
      "Rename onto an existing target fails and leaves target and source untouched (no overwrite).")
  public final void renameOntoExistingTargetFails() throws IOException {
    requirePresent(Capability.ATOMIC_RENAME);
    SupportsAtomicRename store = atomicRenameStore();
    Path target = checkDirectory().child("target");
    Path source = checkDirectory().child("source");
    byte[] existing = AtomicCreateContract.payload(1, 1);
    byte[] incoming = AtomicCreateContract.payload(1, 2);
    StoreContract.write(store, target, existing, false);
    StoreContract.write(store, source, incoming, false);
    assertThat(catchThrowable(() -> store.renameAtomically(source, target)))
        .as("renameAtomically onto an existing target")
        .isInstanceOf(FileAlreadyExistsException.class);
    FileIO other = openStore();
    assertThat(StoreContract.read(other, target)).as("target untouched").isEqualTo(existing);
    assertThat(StoreContract.read(other, source)).as("source still there").isEqualTo(incoming);
  }

  /** Renaming a missing source fails with FileNotFoundException and creates nothing. */
  @Test
  @Order(4)
  @Proves("Rename of a missing source fails with FileNotFoundException and creates nothing.")
  public final void renameOfMissingSourceFails() throws IOException {
    requirePresent(Capability.ATOMIC_RENAME);
    SupportsAtomicRename store = atomicRenameStore();
    Path target = checkDirectory().child("target");
    assertThat(
            catchThrowable(() -> store.renameAtomically(checkDirectory().child("missing"), target)))
        .as("renameAtomically of a missing source")
        .isInstanceOf(FileNotFoundException.class);
    assertThat(store.exists(target)).as("no target appears").isFalse();
  }
}
