package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two compacting writers commit while a third of snapshot publishes lose their answer and a third
 * of snapshot reads fail. A writer that gets {@link CommitStateUnknownException} (or any failure)
 * commits the same messages under the same identifier again. Nothing is cleaned up after an unknown
 * outcome, so every batch ends up committed exactly once and the table equals the model.
 */
class UncertainCommitTest {

  static final int BATCHES = 25;

  /** Faults hit only commits: the writers' own reads (their view refresh) are not the subject. */
  static final ThreadLocal<Boolean> IN_COMMIT = ThreadLocal.withInitial(() -> false);

  @TempDir java.nio.file.Path dir;

  @Test
  void retriedUnknownCommitsLandExactlyOnce() throws Exception {
    long seed = new Random().nextLong();
    Random faults = new Random(seed);
    FaultInjectingStore store = FaultInjectingStore.wrap(new LocalFileIO());
    FileSystemCatalog catalog = new FileSystemCatalog(store, Path.of(dir.toString()), Map.of());
    catalog.createTable(
        new Identifier("db", "kv"),
        Schema.newBuilder()
            .column("k", DataType.intType())
            .column("v", DataType.string())
            .primaryKey("k")
            .option("num-sorted-run.compaction-trigger", "3")
            .build());
    // From here on CREATE publishes only snapshot files (manifests and data files are plain
    // writes).
    store.failRandomly(Operation.CREATE, Fault.LOSE_ANSWER_AFTER_LANDING, 0.3, seed);
    store.beforeLanding(
        Operation.READ,
        (operation, path) -> {
          boolean failRead;
          synchronized (faults) {
            failRead = faults.nextDouble() < 0.3;
          }
          if (IN_COMMIT.get() && path.name().startsWith("snapshot-") && failRead) {
            throw new IOException("Injected read failure of " + path);
          }
        });

    AtomicLong unknowns = new AtomicLong();
    Map<String, List<int[]>> batches = new java.util.concurrent.ConcurrentHashMap<>();
    CyclicBarrier start = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      String user = "w" + w;
      Random keys = new Random(seed + w);
      futures.add(
          pool.submit(
              () -> {
                try (FileStoreTable table = catalog.getTable(Identifier.parse("db.kv"));
                    TableWrite write = table.newWrite(user)) {
                  TableCommit commit = table.newCommit(user);
                  start.await();
                  for (long id = 1; id <= BATCHES; id++) {
                    List<int[]> writes = new ArrayList<>();
                    for (int i = 0; i < 10; i++) {
                      int key = keys.nextInt(40);
                      writes.add(new int[] {key, i});
                      write.write(GenericRow.of(key, user + "/" + id + "/" + i));
                    }
                    batches.put(user + "/" + id, writes);
                    List<CommitMessage> messages = write.prepareCommit();
                    for (int attempt = 0; ; attempt++) {
                      assertThat(attempt)
                          .as("attempts of %s/%s (seed %s)", user, id, seed)
                          .isLessThan(50);
                      IN_COMMIT.set(true);
                      try {
                        commit.commit(id, messages);
                        break;
                      } catch (CommitStateUnknownException e) {
                        unknowns.incrementAndGet();
                      } catch (IOException e) {
                        // Nothing was published; the same messages are committed again.
                      } finally {
                        IN_COMMIT.set(false);
                      }
                    }
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get((long) (5 * TestTiming.FACTOR) + 1, TimeUnit.MINUTES);
    }
    pool.shutdown();
    store.clearFaults();

    FileStoreTable table = catalog.getTable(Identifier.parse("db.kv"));
    Map<String, Long> landedIn = new HashMap<>();
    long latest = table.snapshotManager().latestId().getAsLong();
    for (long id = 1; id <= latest; id++) {
      Snapshot s = table.snapshotManager().get(id);
      if (s.commitKind() == CommitKind.APPEND) {
        Long before = landedIn.put(s.commitUser() + "/" + s.commitIdentifier(), id);
        assertThat(before)
            .as("batch %s/%s committed twice (seed %s)", s.commitUser(), s.commitIdentifier(), seed)
            .isNull();
      }
    }
    assertThat(landedIn.keySet()).as("seed %s", seed).isEqualTo(batches.keySet());
    Map<Integer, String> expected = new TreeMap<>();
    landedIn.entrySet().stream()
        .sorted(Map.Entry.comparingByValue())
        .forEach(
            e -> {
              for (int[] w : batches.get(e.getKey())) {
                expected.put(w[0], e.getKey() + "/" + w[1]);
              }
            });
    assertThat(TestTables.readKeyValues(table)).as("seed %s", seed).isEqualTo(expected);
    assertThat(unknowns.get()).as("unknown outcomes injected (seed %s)", seed).isPositive();
    System.out.printf(
        "%d snapshots, %d unknown outcomes retried (seed %d)%n", latest, unknowns.get(), seed);
  }
}
