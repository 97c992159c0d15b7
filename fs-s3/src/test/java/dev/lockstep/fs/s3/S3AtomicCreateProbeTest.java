package dev.lockstep.fs.s3;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.CommitStrategyUnavailableException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The atomic-create race probe against real servers (issue 18, item 5): s3proxy 2.9.0 honours
 * {@code If-None-Match: *} one request at a time (so {@code s3.conditional-writes=auto} turns
 * atomic create on) but checks and then puts, so racing creates can both win; s3proxy 4.0.0 is
 * atomic. The probe must refuse the first for lock-free commits and accept the second.
 */
class S3AtomicCreateProbeTest {

  @TempDir static java.nio.file.Path work;
  private static CheckThenPutS3Proxy checkThenPut;
  private static S3ProxyServer atomic;

  @BeforeAll
  static void start() throws Exception {
    checkThenPut = CheckThenPutS3Proxy.start(work);
    atomic = S3ProxyServer.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (atomic != null) {
      atomic.close();
    }
    if (checkThenPut != null) {
      checkThenPut.close();
    }
  }

  @Test
  void s3proxy290IsRefusedForLockFreeCommits() throws Exception {
    Path warehouse = freshWarehouse();
    Map<String, String> options = options(checkThenPut.endpoint(), warehouse);
    try (FileIO store = FileIODiscovery.open(warehouse, options);
        S3Client admin = checkThenPut.admin()) {
      assertThat(store)
          .as("one request at a time it honours the header")
          .isInstanceOf(SupportsAtomicCreate.class);
      SnapshotCommitter committer =
          SnapshotCommitter.builder(store, snapshots(warehouse), "db.t").options(options).open();
      assertThat(committer.strategy()).isEqualTo("atomic-create");

      assertThatThrownBy(() -> committer.commit(1, SnapshotContent.of(snapshot("c1"))))
          .isInstanceOf(CommitStrategyUnavailableException.class)
          .hasMessageContaining("s3://" + S3ProxyServer.BUCKET + " at " + checkThenPut.endpoint())
          .hasMessageContaining("not atomic")
          .hasMessageContaining("lock.enabled=true")
          .hasMessageContaining("lockstep conformance");

      assertThat(keysUnder(admin, warehouse))
          .as("no snapshot, every probe object deleted, no record of a failure")
          .isEmpty();
      committer.close();
    }
  }

  @Test
  void s3proxy290IsTrustedOnlyWhenTheProbeIsTurnedOff() throws Exception {
    Path warehouse = freshWarehouse();
    Map<String, String> options = options(checkThenPut.endpoint(), warehouse);
    options.put("commit.atomic-create-probe", "false");
    try (FileIO store = FileIODiscovery.open(warehouse, options);
        S3Client admin = checkThenPut.admin()) {
      SnapshotCommitter committer =
          SnapshotCommitter.builder(store, snapshots(warehouse), "db.t").options(options).open();

      assertThat(committer.commit(1, SnapshotContent.of(snapshot("c1"))).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
      assertThat(keysUnder(admin, warehouse))
          .containsExactlyInAnyOrder(
              key(snapshots(warehouse).child("snapshot-1")),
              key(snapshots(warehouse).child("LATEST")));
      committer.close();
    }
  }

  @Test
  void s3proxy400PassesAndItsVerdictIsRecordedInTheWarehouse() throws Exception {
    Path warehouse = freshWarehouse();
    Map<String, String> options = options(atomic.endpoint(), warehouse);
    try (FileIO store = FileIODiscovery.open(warehouse, options)) {
      SnapshotCommitter committer =
          SnapshotCommitter.builder(store, snapshots(warehouse), "db.t").options(options).open();

      assertThat(committer.commit(1, SnapshotContent.of(snapshot("c1"))).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
      assertThat(committer.commit(2, SnapshotContent.of(snapshot("c2"))).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);

      List<String> keys = keysUnder(atomic.admin(), warehouse);
      assertThat(keys)
          .as("the snapshots, the hint and the record; no probe object")
          .hasSize(4)
          .contains(
              key(snapshots(warehouse).child("snapshot-1")),
              key(snapshots(warehouse).child("snapshot-2")))
          .anyMatch(
              k ->
                  k.startsWith(key(warehouse) + "/.lockstep/atomic-create-probe/")
                      && k.endsWith(".passed"));
      String record = keys.stream().filter(k -> k.endsWith(".passed")).findFirst().orElseThrow();
      assertThat(
              atomic
                  .admin()
                  .getObjectAsBytes(b -> b.bucket(S3ProxyServer.BUCKET).key(record))
                  .asString(UTF_8))
          .contains("endpoint=s3://" + S3ProxyServer.BUCKET + " at " + atomic.endpoint());
      committer.close();
    }
  }

  private static Map<String, String> options(URI endpoint, Path warehouse) {
    Map<String, String> options = new HashMap<>(S3ProxyServer.options(endpoint));
    options.put("warehouse", warehouse.toString());
    return options;
  }

  private static Path freshWarehouse() {
    return Path.of("s3://" + S3ProxyServer.BUCKET + "/wh-" + UUID.randomUUID());
  }

  private static Path snapshots(Path warehouse) {
    return warehouse.child("db.db").child("t").child("snapshot");
  }

  private static byte[] snapshot(String commitId) {
    return ("{\"commitId\":\"" + commitId + "\"}").getBytes(UTF_8);
  }

  private static String key(Path path) {
    return S3Location.of(path).key();
  }

  private static List<String> keysUnder(S3Client admin, Path warehouse) {
    return admin
        .listObjectsV2Paginator(b -> b.bucket(S3ProxyServer.BUCKET).prefix(key(warehouse) + "/"))
        .contents()
        .stream()
        .map(S3Object::key)
        .sorted()
        .toList();
  }
}
