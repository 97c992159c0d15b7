package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.InJvmLockService;
import dev.lockstep.testing.RemoteCreateFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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
}
