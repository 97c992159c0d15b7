package dev.lockstep.engine;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.commit.FencedCommitException;
import dev.lockstep.commit.FencingToken;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.conformance.BlindPutStore;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.TestTiming;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots committed under a lock record the lease's fencing token ({@link Snapshot#fencing()}); a
 * writer whose lease lapsed and was taken over is refused once the newer holder has committed, and
 * its commit of the same messages later lands once. Store: a bare blind PUT (an object store
 * without conditional writes), so that only the lock and its tokens keep writers apart.
 */
class FencingTokenCommitTest {

  @TempDir java.nio.file.Path dir;

  private FileSystemCatalog catalog(FileIO store, Map<String, String> options) {
    return new FileSystemCatalog(store, Path.of(dir.toString()), options);
  }

  private static Map<String, String> locked(String lockType) {
    return Map.of("lock.enabled", "true", "lock.type", lockType);
  }

  private static Schema appendSchema() {
    return Schema.newBuilder()
        .column("writer", DataType.string())
        .column("n", DataType.bigint())
        // Appends alone (one snapshot per commit): writers that are not write-only also compact.
        .option("write-only", "true")
        .build();
  }

  private static CommitResult writeAndCommit(FileStoreTable table, String user, long n)
      throws Exception {
    try (TableWrite write = table.newWrite(user)) {
      write.write(GenericRow.of(user, n));
      return table.newCommit(user).commit(n, write.prepareCommit());
    }
  }

  private static List<String> rows(FileStoreTable table) throws Exception {
    return table.newRead().readAll(table.newScan().plan()).stream()
        .map(row -> row.get(0) + "/" + row.get(1))
        .sorted()
        .collect(Collectors.toList());
  }

  @Test
  void aWriterWhoseLeaseWasTakenOverIsRefusedAndItsRecommitLandsOnce() throws Exception {
    FileIO store = BlindPutStore.bare(new LocalFileIO());
    Map<String, String> options = locked(PausingInJvmLockFactory.IDENTIFIER);
    Identifier id = new Identifier("db", "fenced");
    catalog(store, options).createTable(id, appendSchema());
    FileStoreTable stale = catalog(store, options).getTable(id);
    FileStoreTable newer = catalog(store, options).getTable(id);
    writeAndCommit(newer, "newer", 1);

    try (TableWrite write = stale.newWrite("stale")) {
      write.write(GenericRow.of("stale", 1L));
      List<CommitMessage> messages = write.prepareCommit();
      TableCommit commit = stale.newCommit("stale");
      // The stale writer pauses right after its last lease check; meanwhile its lease runs out and
      // the newer writer takes the lock over and commits snapshot 2, the one the stale writer
      // meant.
      PausingInJvmLockFactory.PAUSING.pauseAfterCheck(
          2,
          lease -> {
            SharedInJvmLockFactory.SHARED.expire(id.toString());
            writeAndCommit(newer, "newer", 2);
          });

      assertThatThrownBy(() -> commit.commit(1, messages))
          .isInstanceOf(FencedCommitException.class)
          .hasMessageContaining("snapshot-2");

      assertThat(stale.snapshotManager().latestId()).hasValue(2);
      assertThat(rows(stale))
          .as("the newer writer's commit is intact, the stale one absent")
          .containsExactly("newer/1", "newer/2");

      CommitResult again = commit.commit(1, messages);
      assertThat(again.dataSnapshotId()).isEqualTo(3);
    }
    assertThat(rows(stale)).containsExactly("newer/1", "newer/2", "stale/1");
    List<Long> tokens = new ArrayList<>();
    for (long s = 1; s <= 3; s++) {
      tokens.add(stale.snapshotManager().get(s).fencing().token());
    }
    assertThat(tokens).isSorted().doesNotHaveDuplicates();
    stale.close();
    newer.close();
  }

  @Test
  void tokensOfConsecutiveLockedSnapshotsNeverDecrease() throws Exception {
    int writers = 3;
    int commits = 15;
    FileIO store = new BlindPutStore(new LocalFileIO());
    Map<String, String> options = locked(SharedInJvmLockFactory.IDENTIFIER);
    Identifier id = new Identifier("db", "tokens");
    catalog(store, options).createTable(id, appendSchema());
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CyclicBarrier start = new CyclicBarrier(writers);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      String user = "w" + w;
      done.add(
          pool.submit(
              () -> {
                try (FileStoreTable table = catalog(store, options).getTable(id)) {
                  start.await();
                  for (long c = 1; c <= commits; c++) {
                    writeAndCommit(table, user, c);
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get((long) (3 * TestTiming.FACTOR) + 1, TimeUnit.MINUTES);
    }
    pool.shutdown();

    FileStoreTable table = catalog(store, options).getTable(id);
    long latest = table.snapshotManager().latestId().getAsLong();
    assertThat(latest).isEqualTo((long) writers * commits);
    long previous = Long.MIN_VALUE;
    for (long s = 1; s <= latest; s++) {
      Snapshot.Fencing fencing = table.snapshotManager().get(s).fencing();
      assertThat(fencing).as("snapshot %d records its token", s).isNotNull();
      assertThat(fencing.lock()).isEqualTo(SharedInJvmLockFactory.IDENTIFIER + ":db.tokens");
      assertThat(fencing.token()).as("token of snapshot %d", s).isGreaterThan(previous);
      previous = fencing.token();
    }
  }

  @Test
  void lockFreeCommitsRecordNoToken() throws Exception {
    FileStoreTable table =
        catalog(new LocalFileIO(), Map.of())
            .createTable(new Identifier("db", "free"), appendSchema());
    writeAndCommit(table, "u", 1);

    assertThat(table.committer().strategy()).isEqualTo("atomic-create");
    assertThat(table.snapshotManager().get(1).fencing()).isNull();
    byte[] json = table.snapshotManager().log().read(1);
    assertThat(new String(json, UTF_8)).doesNotContain("fencing");
    assertThat(SnapshotManager.fencingToken(json)).isEmpty();
  }

  /** A snapshot file written before the field existed (the engine's JSON as it was). */
  @Test
  void aSnapshotWithoutTheFieldStillReads() throws Exception {
    String old =
        """
        {
          "version" : 1,
          "id" : 1,
          "schemaId" : 0,
          "baseManifestList" : "manifest-list-0a1b",
          "priorDeltas" : [ ],
          "deltaManifestList" : "manifest-list-2c3d",
          "commitUser" : "job-42",
          "commitIdentifier" : 7,
          "commitKind" : "APPEND",
          "timeMillis" : 1714521600000,
          "totalRecordCount" : 3,
          "deltaRecordCount" : 3,
          "commitId" : "5f0c6f7e-1111-2222-3333-444455556666"
        }""";
    LocalFileIO io = new LocalFileIO();
    SnapshotLog log = new SnapshotLog(io, Path.of(dir.toString()));
    try (OutputStream out = io.newOutputStream(log.snapshotPath(1), false)) {
      out.write(old.getBytes(UTF_8));
    }

    Snapshot snapshot = new SnapshotManager(log).get(1);

    assertThat(snapshot.commitUser()).isEqualTo("job-42");
    assertThat(snapshot.commitIdentifier()).isEqualTo(7);
    assertThat(snapshot.fencing()).isNull();
    assertThat(SnapshotManager.fencingToken(old.getBytes(UTF_8))).isEmpty();
    Snapshot fenced = snapshot.withFencing(new Snapshot.Fencing("zookeeper:db.t", 4294967312L));
    assertThat(SnapshotManager.fencingToken(SnapshotManager.serialize(fenced)))
        .hasValue(new FencingToken("zookeeper:db.t", 4294967312L));
  }
}
