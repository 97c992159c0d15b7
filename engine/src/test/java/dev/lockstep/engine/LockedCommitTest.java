package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.TestTiming;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a store with neither atomic create nor atomic rename (an object store without conditional
 * writes), the engine commits only under a lock ({@code lock.enabled=true}), and then concurrent
 * writers lose nothing and never conflict with each other; without a lock it refuses to commit.
 */
class LockedCommitTest {

  static final int WRITERS = 4;
  static final int COMMITS = 40;

  @TempDir java.nio.file.Path dir;

  private FileSystemCatalog catalog(Map<String, String> options) {
    FileIO plain = new CapabilityHidingFileIO(new LocalFileIO());
    return new FileSystemCatalog(plain, Path.of(dir.toString()), options);
  }

  @Test
  void concurrentWritersCommitUnderALockOnAStoreWithoutPrimitives() throws Exception {
    Map<String, String> locked =
        Map.of("lock.enabled", "true", "lock.type", SharedInJvmLockFactory.IDENTIFIER);
    catalog(locked)
        .createTable(
            new Identifier("db", "log"),
            Schema.newBuilder()
                .column("writer", DataType.string())
                .column("n", DataType.bigint())
                // Appends alone: writers that are not write-only also compact the small files,
                // adding COMPACT snapshots to the count below.
                .option("write-only", "true")
                .build());
    CyclicBarrier start = new CyclicBarrier(WRITERS);
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      String user = "w" + w;
      futures.add(
          pool.submit(
              () -> {
                try (FileStoreTable table = catalog(locked).getTable(Identifier.parse("db.log"));
                    TableWrite write = table.newWrite(user)) {
                  assertThat(table.committer().strategy()).startsWith("lock");
                  TableCommit commit = table.newCommit(user);
                  start.await();
                  for (long c = 1; c <= COMMITS; c++) {
                    write.write(GenericRow.of(user, c));
                    // Under the lock each attempt rebases under its lease: locked committers never
                    // conflict with each other (they took turns in a tight loop and lost up to
                    // 'commit.max-retries' races in a row before the rebase moved under the lease).
                    assertThat(commit.commit(c, write.prepareCommit()).retries()).isZero();
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get((long) (5 * TestTiming.FACTOR) + 1, TimeUnit.MINUTES);
    }
    pool.shutdown();

    FileStoreTable table = catalog(locked).getTable(Identifier.parse("db.log"));
    long latest = table.snapshotManager().latestId().getAsLong();
    assertThat(latest).isEqualTo((long) WRITERS * COMMITS);
    Set<String> commits = new HashSet<>();
    for (long id = 1; id <= latest; id++) {
      var s = table.snapshotManager().get(id);
      assertThat(commits.add(s.commitUser() + "/" + s.commitIdentifier())).isTrue();
    }
    assertThat(table.newRead().readAll(table.newScan().plan())).hasSize(WRITERS * COMMITS);
  }

  @Test
  void withoutALockTheSameStoreRefusesToCommit() throws Exception {
    FileStoreTable table =
        catalog(Map.of())
            .createTable(
                new Identifier("db", "t"),
                Schema.newBuilder().column("n", DataType.bigint()).build());
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of(1L));
      assertThatThrownBy(() -> table.newCommit("u").commit(1, write.prepareCommit()))
          .hasMessageContaining("lock.enabled=true")
          .hasMessageContaining("lock.type");
    }
  }
}
