package dev.lockstep.fs.oss;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.StoreEndpoint;
import dev.lockstep.fs.oss.testing.OssTestServer;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The atomic-create probe (lock-api README, "The atomic-create probe") runs on OSS too: before the
 * first lock-free commit the store's {@code x-oss-forbid-overwrite} is raced, the test server
 * (which decides it under a per-key lock, as OSS does) passes, the verdict is recorded under the
 * warehouse, and every probe object is gone.
 */
class OssAtomicCreateProbeTest {

  private static OssTestServer server;

  @BeforeAll
  static void start() throws IOException {
    server = OssTestServer.start().createBucket(OssTargets.BUCKET);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void anAtomicForbidOverwritePassesAndItsVerdictIsRecordedInTheWarehouse() throws Exception {
    Path warehouse = Path.of("oss://" + OssTargets.BUCKET + "/wh-" + UUID.randomUUID());
    Map<String, String> options = new HashMap<>(OssTargets.options(server));
    options.put("warehouse", warehouse.toString());
    try (FileIO store = FileIODiscovery.open(warehouse, options)) {
      assertThat(store).isInstanceOf(StoreEndpoint.class);
      assertThat(((StoreEndpoint) store).endpointIdentity(warehouse))
          .startsWith("oss://" + OssTargets.BUCKET + " at ");
      Path snapshots = warehouse.child("db.db").child("t").child("snapshot");
      try (SnapshotCommitter committer =
          SnapshotCommitter.builder(store, snapshots, "db.t").options(options).open()) {
        assertThat(committer.strategy()).isEqualTo("atomic-create");
        assertThat(
                committer
                    .commit(1, SnapshotContent.of("{\"commitId\":\"c1\"}".getBytes(UTF_8)))
                    .outcome())
            .isEqualTo(CommitOutcome.COMMITTED);
        assertThat(
                committer
                    .commit(2, SnapshotContent.of("{\"commitId\":\"c2\"}".getBytes(UTF_8)))
                    .outcome())
            .isEqualTo(CommitOutcome.COMMITTED);
      }
      List<FileStatus> probe =
          store.list(warehouse.child(".lockstep").child("atomic-create-probe"));
      assertThat(probe)
          .as("only the record of the passed probe; no probe object left")
          .singleElement()
          .satisfies(s -> assertThat(s.path().name()).endsWith(".passed"));
      String record;
      try (var in = store.newInputStream(probe.get(0).path())) {
        record = new String(in.readAllBytes(), UTF_8);
      }
      assertThat(record).contains("oss://" + OssTargets.BUCKET + " at ");
    }
  }
}
