package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.InJvmLockService;
import dev.lockstep.testing.RemoteCreateFileIO;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The race probe a lock-free {@code atomic-create} committer runs once per endpoint before trusting
 * the store's create (issue 18, item 5), over stores that name an endpoint: a check-then-put one
 * (s3proxy before 4.0) and a truly atomic one.
 */
class AtomicCreateProbeTest {

  private static final String KEY = "db.t";

  @TempDir java.nio.file.Path dir;
  private final LocalFileIO local = new LocalFileIO();
  private String endpoint;

  @BeforeEach
  void freshEndpoint() {
    endpoint = "test://endpoint-" + UUID.randomUUID();
  }

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

  private Map<String, String> options(String... keyValues) {
    Map<String, String> map = new HashMap<>(Map.of("warehouse", warehouse().toString()));
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }

  private static byte[] snapshot(String commitId) {
    return ("{\"commitId\":\"" + commitId + "\"}").getBytes(UTF_8);
  }

  @Test
  void aCheckThenPutStoreIsRefusedForLockFreeCommitsWithTheFindingAndTheFix() throws Exception {
    RemoteCreateFileIO store = RemoteCreateFileIO.checkThenPut(local, endpoint, 1);
    SnapshotCommitter committer =
        SnapshotCommitter.builder(store, snapshots(), KEY).options(options()).open();
    assertThat(committer.strategy()).isEqualTo("atomic-create");

    assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(snapshot("c1"))))
        .isInstanceOf(CommitStrategyUnavailableException.class)
        .hasMessageContaining(endpoint)
        .hasMessageContaining("not atomic")
        .hasMessageContaining("concurrent creates of one new key all succeeded")
        .hasMessageContaining("lock.enabled=true")
        .hasMessageContaining("lockstep conformance")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));

    assertThat(committer.log().listIds()).as("nothing was committed").isEmpty();
    assertThat(filesUnder(warehouse().child(".lockstep")))
        .as("every probe object was deleted," + " and a failure is not recorded")
        .isEmpty();
    long probeCreates = store.creates();
    assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(snapshot("c1"))))
        .isInstanceOf(CommitStrategyUnavailableException.class);
    assertThat(store.creates()).as("the verdict is cached in this process").isEqualTo(probeCreates);
    committer.close();
  }

  @Test
  void anAtomicStorePassesOnceAndLaterProcessesTrustTheRecord() throws Exception {
    RemoteCreateFileIO store = RemoteCreateFileIO.atomic(local, endpoint);
    SnapshotCommitter first =
        SnapshotCommitter.builder(store, snapshots(), KEY).options(options()).open();

    assertThat(first.commit(1, SnapshotContent.of(snapshot("c1"))).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);

    assertThat(store.creates())
        .as("the probe raced before the first commit")
        .isGreaterThanOrEqualTo((long) AtomicCreateProbe.ROUNDS * AtomicCreateProbe.CONTENDERS + 1);
    Path record =
        warehouse()
            .child(AtomicCreateProbe.DIRECTORY)
            .child(AtomicCreateProbe.recordName(endpoint));
    assertThat(filesUnder(warehouse().child(".lockstep")))
        .as("only the record is left")
        .containsExactly(record.toString());
    assertThat(new String(SnapshotLog.readFile(local, record), UTF_8))
        .contains("endpoint=" + endpoint)
        .contains("verdict=atomic");

    long before = store.creates();
    assertThat(first.commit(2, SnapshotContent.of(snapshot("c2"))).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);
    SnapshotCommitter other =
        SnapshotCommitter.builder(store, snapshots(), KEY).options(options()).open();
    assertThat(other.commit(3, SnapshotContent.of(snapshot("c3"))).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);
    assertThat(store.creates()).as("no probe again in this process").isEqualTo(before + 2);

    AtomicCreateProbe.forgetVerdicts(); // as a later process: only the record is known
    SnapshotCommitter later =
        SnapshotCommitter.builder(store, snapshots(), KEY).options(options()).open();
    assertThat(later.commit(4, SnapshotContent.of(snapshot("c4"))).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);
    assertThat(store.creates())
        .as("a later process reads the record, races nothing")
        .isEqualTo(before + 3);
    first.close();
    other.close();
    later.close();
  }

  @Test
  void withoutAWarehouseTheProbeRunsBesideTheSnapshotDirectory() throws Exception {
    RemoteCreateFileIO store = RemoteCreateFileIO.atomic(local, endpoint);
    SnapshotCommitter committer =
        SnapshotCommitter.builder(store, snapshots(), KEY).options(Map.of()).open();

    assertThat(committer.commit(1, SnapshotContent.of(snapshot("c1"))).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);

    assertThat(filesUnder(snapshots().parent().child(".lockstep")))
        .containsExactly(
            snapshots()
                .parent()
                .child(AtomicCreateProbe.DIRECTORY)
                .child(AtomicCreateProbe.recordName(endpoint))
                .toString());
    committer.close();
  }

  @Test
  void theOptionSkipsTheProbeForAStoreThatPassedTheKit() throws Exception {
    RemoteCreateFileIO store = RemoteCreateFileIO.checkThenPut(local, endpoint, 0);
    SnapshotCommitter committer =
        SnapshotCommitter.builder(store, snapshots(), KEY)
            .options(options("commit.atomic-create-probe", "false"))
            .open();

    assertThat(committer.commit(1, SnapshotContent.of(snapshot("c1"))).outcome())
        .isEqualTo(CommitOutcome.COMMITTED);
    assertThat(store.creates()).as("the snapshot's create only").isEqualTo(1);
    committer.close();
  }

  @Test
  void underTheLockAndOnReadPathsNothingIsProbed() throws Exception {
    RemoteCreateFileIO store = RemoteCreateFileIO.checkThenPut(local, endpoint, 1);
    SnapshotCommitter reader =
        SnapshotCommitter.builder(store, snapshots(), KEY).options(options()).open();
    assertThat(reader.log().latestId()).isEmpty();
    reader.close();
    assertThat(store.creates()).as("opening and reading probe nothing").isZero();

    try (InJvmLockService lock = new InJvmLockService()) {
      SnapshotCommitter locked =
          SnapshotCommitter.builder(store, snapshots(), KEY)
              .options(CommitOptions.from(options("lock.enabled", "true", "lock.type", "in-jvm")))
              .lockService(lock)
              .build();
      assertThat(locked.commit(1, SnapshotContent.of(snapshot("c1"))).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
      locked.close();
    }
    assertThat(store.creates())
        .as("the lock keeps writers apart; the create is used once")
        .isEqualTo(1);
  }

  private List<String> filesUnder(Path path) throws IOException {
    List<String> files = new ArrayList<>();
    if (!local.exists(path)) {
      return files;
    }
    for (FileStatus status : local.list(path)) {
      if (status.directory()) {
        files.addAll(filesUnder(status.path()));
      } else {
        files.add(status.path().toString());
      }
    }
    return files;
  }

  /**
   * An atomic create whose refused creates still overwrite the key (and answer "exists" all the
   * same): one create wins, and the key then holds a loser's bytes.
   */
  private static final class OverwritingOnConflict extends CapabilityHidingFileIO
      implements SupportsAtomicCreate {
    OverwritingOnConflict() {
      super(new LocalFileIO());
    }

    @Override
    public void createAtomically(Path path, byte[] content) throws IOException {
      try {
        ((SupportsAtomicCreate) delegate()).createAtomically(path, content);
      } catch (FileAlreadyExistsException e) {
        try (OutputStream out = delegate().newOutputStream(path, true)) {
          out.write(content);
        }
        throw e;
      }
    }
  }

  @Test
  void aStoreWhoseRefusedCreatesOverwriteTheWinnerFailsTheProbe() throws Exception {
    RemoteCreateFileIO store = RemoteCreateFileIO.atomic(new OverwritingOnConflict(), endpoint);
    try (SnapshotCommitter committer =
        SnapshotCommitter.builder(store, snapshots(), KEY).options(options()).open()) {
      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(snapshot("c1"))))
          .isInstanceOf(CommitStrategyUnavailableException.class)
          .hasMessageContaining("a create succeeded, and then the key held another create's bytes")
          .hasMessageContaining("in round 1 of " + AtomicCreateProbe.ROUNDS);
      assertThat(committer.log().listIds()).isEmpty();
    }
  }

  @Test
  void aCommitWaitingForAnotherThreadsProbeThatFailsGetsThatFailure() throws Exception {
    // Committer A probes; its first create hangs until committer B, on the same endpoint, waits for
    // A's verdict; then every create of A's probe fails. B gets A's failure, wrapped with its
    // message, and tries no probe of its own (one write attempt each).
    FaultInjectingStore faults = FaultInjectingStore.wrap(new LocalFileIO());
    RemoteCreateFileIO store = RemoteCreateFileIO.atomic((SupportsAtomicCreate) faults, endpoint);
    CountDownLatch probing = new CountDownLatch(1);
    AtomicReference<Thread> waiter = new AtomicReference<>();
    AtomicBoolean first = new AtomicBoolean(true);
    faults.beforeLanding(
        Operation.CREATE,
        (op, path) -> {
          if (!path.name().startsWith("round-")) {
            return;
          }
          if (first.getAndSet(false)) {
            probing.countDown();
            awaitWaitingForTheVerdict(waiter);
          }
          throw new IOException("store unavailable");
        });
    Map<String, String> options = options("commit.write-attempts", "1");
    CompletableFuture<Throwable> a = commitOnThread(store, options, "committer-a", null);
    assertThat(probing.await(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    CompletableFuture<Throwable> b = commitOnThread(store, options, "committer-b", waiter);

    Throwable failedA = a.get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
    Throwable failedB = b.get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
    assertThat(failedA)
        .isInstanceOf(SnapshotNotPublishedException.class)
        .cause()
        .hasMessageContaining("The atomic-create probe of " + endpoint + " could not create");
    assertThat(failedB)
        .isInstanceOf(SnapshotNotPublishedException.class)
        .cause()
        .hasMessageStartingWith("The atomic-create probe of " + endpoint + " failed: ")
        .hasMessageContaining("could not create")
        .hasCause(failedA.getCause());
    assertThat(store.creates())
        .as("B raced no probe of its own")
        .isEqualTo(AtomicCreateProbe.CONTENDERS);
  }

  /** Runs one commit in a thread (published in {@code thread} when given); its failure or null. */
  private CompletableFuture<Throwable> commitOnThread(
      RemoteCreateFileIO store,
      Map<String, String> options,
      String name,
      AtomicReference<Thread> thread) {
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    Thread committing =
        new Thread(
            () -> {
              try (SnapshotCommitter committer =
                  SnapshotCommitter.builder(store, snapshots(), KEY).options(options).open()) {
                committer.commit(1, SnapshotContent.of(snapshot(name)));
                failure.complete(null);
              } catch (Throwable t) {
                failure.complete(t);
              }
            },
            name);
    if (thread != null) {
      thread.set(committing);
    }
    committing.start();
    return failure;
  }

  /** Returns once {@code waiter} is parked waiting for another thread's probe verdict. */
  private static void awaitWaitingForTheVerdict(AtomicReference<Thread> waiter) {
    long deadline = System.nanoTime() + TestTiming.seconds(30).toNanos();
    while (System.nanoTime() - deadline < 0) {
      Thread thread = waiter.get();
      if (thread != null
          && thread.getState() == Thread.State.WAITING
          && Arrays.stream(thread.getStackTrace())
              .anyMatch(
                  frame ->
                      frame.getClassName().equals(AtomicCreateProbe.class.getName())
                          && frame.getMethodName().equals("verdict"))) {
        return;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    throw new AssertionError("the second committer never waited for the probe's verdict");
  }
}
