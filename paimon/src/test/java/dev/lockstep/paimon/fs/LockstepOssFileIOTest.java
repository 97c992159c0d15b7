package dev.lockstep.paimon.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.fs.oss.testing.OssTestServer;
import dev.lockstep.paimon.testing.PaimonTables;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Paimon on {@code oss://} through Lockstep's OSS store (fs-oss's in-process OSS server): the
 * snapshot commit is one {@code x-oss-forbid-overwrite} create, and a Paimon table works end to
 * end.
 */
class LockstepOssFileIOTest {

  private static OssTestServer server;
  private static Map<String, String> options;

  @BeforeAll
  static void start() throws Exception {
    server = OssTestServer.start().createBucket("paimon");
    options = new HashMap<>();
    options.put("warehouse", "oss://paimon/w-" + UUID.randomUUID());
    options.put("fs.oss.endpoint", server.endpoint());
    options.put("fs.oss.accessKeyId", server.accessKeyId());
    options.put("fs.oss.accessKeySecret", server.accessKeySecret());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void tryToWriteAtomicIsOneForbidOverwriteCreate() throws Exception {
    FileIO io =
        FileIO.get(
            new Path(options.get("warehouse")), CatalogContext.create(Options.fromMap(options)));
    assertThat(io).isInstanceOf(LockstepFileIO.class);
    Path snapshot = new Path(options.get("warehouse") + "/atomic/snapshot-1");
    int putsBefore = server.requestCount("PutObject");
    assertThat(io.tryToWriteAtomic(snapshot, "first")).isTrue();
    assertThat(server.requestCount("PutObject")).isEqualTo(putsBefore + 1);
    assertThat(io.tryToWriteAtomic(snapshot, "second")).isFalse();
    assertThat(io.readFileUtf8(snapshot)).isEqualTo("first");
  }

  @Test
  void aPaimonTableWritesAndReadsBack() throws Exception {
    PaimonTables.create(options, "db", "t");
    try (Catalog catalog = PaimonTables.catalog(options)) {
      BatchWriteBuilder builder =
          catalog.getTable(Identifier.create("db", "t")).newBatchWriteBuilder();
      try (BatchTableWrite write = builder.newWrite();
          BatchTableCommit commit = builder.newCommit()) {
        for (int i = 1; i <= 100; i++) {
          write.write(GenericRow.of(7, i));
        }
        commit.commit(write.prepareCommit());
      }
    }
    Map<Integer, Set<Integer>> rows = PaimonTables.rows(options, "db", "t");
    assertThat(rows.get(7)).hasSize(100);
    assertThat(PaimonTables.snapshotFiles(options, "db", "t")).isEqualTo(1);
  }
}
