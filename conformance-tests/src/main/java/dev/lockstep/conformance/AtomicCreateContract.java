package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lockstep.commit.CommitStrategyUnavailableException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.conformance.Race.Outcome;
import dev.lockstep.conformance.Race.Result;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Atomic create ({@link Capability#ATOMIC_CREATE}): {@link SupportsAtomicCreate#createAtomically}
 * publishes bytes at a path if and only if nothing is there, atomically, content whole.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class AtomicCreateContract extends ConformanceContract {

  /**
   * Declared present: the store implements {@link SupportsAtomicCreate}. Declared absent: it does
   * not, and the commit protocol refuses {@code commit.strategy=atomic-create} with a clear error.
   */
  @Test
  @Order(1)
  @Proves(
      "The atomic-create declaration matches the store (SupportsAtomicCreate); when absent,"
          + " commit.strategy=atomic-create is refused.")
  public final void atomicCreateDeclarationMatchesStore() throws IOException {
    boolean declared = declaration(Capability.ATOMIC_CREATE);
    if (!declaration(Capability.STORE_BASICS)) {
      assertThat(declared)
          .as(
              "atomic-create is declared present, but store-basics is declared absent: a capability"
                  + " of the store needs a store under test")
          .isFalse();
      return; // no store: the capability is absent, and StoreContract checks that no store opens
    }
    FileIO store = openStore();
    if (declared) {
      assertThat(store)
          .as("atomic-create is declared, so the store must implement" + " SupportsAtomicCreate")
          .isInstanceOf(SupportsAtomicCreate.class);
      return;
    }
    assertThat(store)
        .as(
            "atomic-create is declared absent, yet the store implements"
                + " SupportsAtomicCreate: declare it present (and prove it)")
        .isNotInstanceOf(SupportsAtomicCreate.class);
    assertThat(
            catchThrowable(
                () ->
                    SnapshotCommitter.builder(store, checkDirectory(), "conformance.create")
                        .options(Map.of("commit.strategy", "atomic-create"))
                        .open()))
        .as("commit.strategy=atomic-create on a store without it must be refused")
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining("atomic create");
  }

  /**
   * Many contenders on separate clients start on a barrier and create the same path, round after
   * round: exactly one wins each round, the others see {@link FileAlreadyExistsException}, the file
   * holds the winner's bytes whole, and nothing of the losers is left behind.
   */
  @Test
  @Order(2)
  @Proves(
      "Contenders racing on a barrier to create one path: exactly one wins each round, its bytes"
          + " are whole, losers leave nothing.")
  public final void exactlyOneCreatorWinsEachRound() throws Exception {
    requirePresent(Capability.ATOMIC_CREATE);
    int contenders = settings().contenders();
    List<SupportsAtomicCreate> clients = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      clients.add(atomicCreateStore());
    }
    FileIO checker = openStore();
    try (Race race = new Race(contenders, settings().scaled(Duration.ofSeconds(60)))) {
      for (int round = 0; round < settings().rounds(); round++) {
        Path dir = checkDirectory().child("round-" + round);
        Path target = dir.child("snapshot-1");
        byte[][] payloads = new byte[contenders][];
        for (int i = 0; i < contenders; i++) {
          payloads[i] = payload(round, i);
        }
        List<Result> results =
            race.round(i -> clients.get(i).createAtomically(target, payloads[i]));
        byte[] found = StoreContract.read(checker, target);
        assertOneWinner("round " + round, results, payloads, found, checker, dir);
        assertThat(
                checker.list(dir).stream()
                    .filter(s -> !s.directory())
                    .map(s -> s.path().name())
                    .toList())
            .as("round %d: the losers must leave nothing behind; %s", round, listing(checker, dir))
            .containsExactly("snapshot-1");
      }
    }
  }

  /** Creating over an existing file conflicts and leaves the existing bytes untouched. */
  @Test
  @Order(3)
  @Proves("Atomic create over an existing file conflicts and leaves the file untouched.")
  public final void createOverExistingFileConflicts() throws IOException {
    requirePresent(Capability.ATOMIC_CREATE);
    SupportsAtomicCreate store = atomicCreateStore();
    Path target = checkDirectory().child("existing");
    byte[] first = payload(0, 0);
    store.createAtomically(target, first);
    assertThat(catchThrowable(() -> store.createAtomically(target, payload(0, 1))))
        .as("createAtomically over an existing file")
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(StoreContract.read(openStore(), target))
        .as("the first file is untouched")
        .isEqualTo(first);
    StoreContract.write(store, checkDirectory().child("plain"), first, false);
    assertThat(catchThrowable(() -> store.createAtomically(checkDirectory().child("plain"), first)))
        .as("createAtomically over a file written by a plain write")
        .isInstanceOf(FileAlreadyExistsException.class);
  }

  private SupportsAtomicCreate atomicCreateStore() throws IOException {
    FileIO store = openStore();
    assertThat(store)
        .as("atomic-create is declared, so the store must implement" + " SupportsAtomicCreate")
        .isInstanceOf(SupportsAtomicCreate.class);
    return (SupportsAtomicCreate) store;
  }

  /**
   * Exactly one contender's write is there: the single WON, or, when a contender's answer was lost,
   * the one whose bytes are found. Every other contender saw a conflict.
   */
  static void assertOneWinner(
      String round,
      List<Result> results,
      byte[][] payloads,
      byte[] found,
      FileIO checker,
      Path dir) {
    List<Result> errors = results.stream().filter(r -> r.outcome() == Outcome.ERROR).toList();
    assertThat(errors)
        .as("%s: contenders failed with errors instead of win or conflict: %s", round, results)
        .isEmpty();
    List<Integer> owners = new ArrayList<>();
    for (int i = 0; i < payloads.length; i++) {
      if (Arrays.equals(found, payloads[i])) {
        owners.add(i);
      }
    }
    assertThat(owners)
        .as(
            "%s: the file must hold exactly one contender's bytes, whole (%d bytes"
                + " found); outcomes %s; %s",
            round, found.length, results, listing(checker, dir))
        .hasSize(1);
    int owner = owners.get(0);
    for (Result r : results) {
      if (r.outcome() == Outcome.WON) {
        assertThat(r.contender())
            .as(
                "%s: two contenders were told they won (or a winner's bytes"
                    + " were replaced): outcomes %s, the file holds #%d's bytes",
                round, results, owner)
            .isEqualTo(owner);
      }
    }
    assertThat(results.get(owner).outcome())
        .as("%s: the owner of the file #%d was told %s", round, owner, results.get(owner))
        .isIn(Outcome.WON, Outcome.UNCERTAIN);
  }

  /**
   * A distinct, recognisable payload per round and contender, large enough to catch torn writes.
   */
  static byte[] payload(int round, int contender) {
    byte[] body = StoreContract.randomBytes(32 * 1024, round * 1000L + contender);
    byte[] header =
        ("round " + round + " contender " + contender + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] out = Arrays.copyOf(header, header.length + body.length);
    System.arraycopy(body, 0, out, header.length, body.length);
    return out;
  }
}
