package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Two writers (two commit users) on one dynamic-bucket partition, in random interleavings of
 * upserts and deletes of overlapping keys, flushes, compactions and commits. Each writer's batch
 * starts on the snapshot that was latest when it began, so the writers assign new keys to buckets
 * on stale bases and their assignments collide; the committer re-routes the loser's rows into the
 * winner's bucket. After every commit the table holds each key once (the read fails on a key read
 * twice) with the value of the last committed write (issue 19).
 *
 * <p>Without the re-routing (the commit publishing its own assignments regardless), the second
 * writer's rows of a colliding key stay in its own bucket and the key is read twice: the property
 * fails; {@link #theReroutingPathWasTaken} makes sure the tries met collisions at all.
 */
class DynamicBucketReroutePropertyTest {

  private static final AtomicLong CONFLICTS = new AtomicLong();

  sealed interface Action permits Upsert, Delete, Flush, Compact, Commit {}

  record Upsert(int writer, int key) implements Action {}

  record Delete(int writer, int key) implements Action {}

  record Flush(int writer) implements Action {}

  record Compact(int writer, boolean full) implements Action {}

  record Commit(int writer) implements Action {}

  @Property(tries = 40)
  void eachKeyOnceWithTheLastCommittedValue(@ForAll("actions") List<Action> actions)
      throws Exception {
    TestTables.inTempDirectory("lockstep-dynbucket", dir -> run(dir, actions));
  }

  @AfterContainer
  static void theReroutingPathWasTaken() {
    System.out.println("key-hash conflicts re-routed over all tries: " + CONFLICTS.get());
    assertThat(CONFLICTS.get()).as("key-hash conflicts re-routed over all tries").isPositive();
  }

  private static void run(Path dir, List<Action> actions) throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir,
            Map.of(
                "bucket", "-1",
                "dynamic-bucket.target-row-num", "3",
                "dynamic-bucket.max-buckets", "5",
                "num-sorted-run.compaction-trigger", "3",
                "write-buffer-size", "1 kb"));
    Map<Integer, String> model = new TreeMap<>();
    List<TableWrite> writes = List.of(table.newWrite("w0"), table.newWrite("w1"));
    List<TableCommit> commits = List.of(table.newCommit("w0"), table.newCommit("w1"));
    List<List<Object[]>> pending = List.of(new ArrayList<>(), new ArrayList<>());
    long[] identifiers = new long[2];
    int step = 0;
    try {
      for (Action action : actions) {
        step++;
        if (action instanceof Upsert u) {
          String value = "w" + u.writer() + "-" + step;
          writes.get(u.writer()).write(GenericRow.of(u.key(), value));
          pending.get(u.writer()).add(new Object[] {u.key(), value});
        } else if (action instanceof Delete d) {
          writes.get(d.writer()).delete(GenericRow.of(d.key(), null));
          pending.get(d.writer()).add(new Object[] {d.key(), null});
        } else if (action instanceof Flush f) {
          writes.get(f.writer()).flush();
        } else if (action instanceof Compact c) {
          writes.get(c.writer()).compact(c.full());
        } else if (action instanceof Commit c) {
          int w = c.writer();
          TableCommit commit = commits.get(w);
          long before = commit.indexConflicts();
          commit.commit(++identifiers[w], writes.get(w).prepareCommit());
          CONFLICTS.addAndGet(commit.indexConflicts() - before);
          for (Object[] op : pending.get(w)) {
            if (op[1] == null) {
              model.remove((Integer) op[0]);
            } else {
              model.put((Integer) op[0], (String) op[1]);
            }
          }
          pending.get(w).clear();
          assertThat(TestTables.readKeyValues(table))
              .as("after step %d of %s", step, actions)
              .isEqualTo(model);
        }
      }
    } finally {
      writes.forEach(TableWrite::close);
    }
    try (TableCompactor compactor = table.newCompactor("c")) {
      compactor.compactOnce(true);
    }
    assertThat(TestTables.readKeyValues(table))
        .as("after a full compaction of %s", actions)
        .isEqualTo(model);
    // The index holds each committed key hash in one bucket.
    Map<Integer, Integer> seen = new HashMap<>();
    var s = table.snapshotManager().latest().orElseThrow();
    for (var f : table.indexManifest().read(s.indexManifest())) {
      for (int h : table.indexManifest().readHashes(f.fileName())) {
        Integer other = seen.put(h, f.bucket());
        assertThat(other == null || other == f.bucket())
            .as("hash %s in buckets %s and %s", h, other, f.bucket())
            .isTrue();
      }
    }
    table.close();
  }

  @Provide
  Arbitrary<List<Action>> actions() {
    Arbitrary<Integer> writer = Arbitraries.integers().between(0, 1);
    Arbitrary<Integer> key = Arbitraries.integers().between(0, 24);
    Arbitrary<Action> upsert =
        Arbitraries.integers().between(0, 1).flatMap(w -> key.map(k -> (Action) new Upsert(w, k)));
    Arbitrary<Action> delete = writer.flatMap(w -> key.map(k -> (Action) new Delete(w, k)));
    Arbitrary<Action> flush = writer.map(Flush::new);
    Arbitrary<Action> compact =
        writer.flatMap(w -> Arbitraries.of(true, false).map(full -> new Compact(w, full)));
    Arbitrary<Action> commit = writer.map(Commit::new);
    return Arbitraries.frequencyOf(
            Tuple.of(12, upsert),
            Tuple.of(3, delete),
            Tuple.of(1, flush),
            Tuple.of(2, compact),
            Tuple.of(3, commit))
        .list()
        .ofMinSize(10)
        .ofMaxSize(80)
        .map(
            list -> {
              List<Action> all = new ArrayList<>(list);
              all.add(new Commit(0));
              all.add(new Commit(1));
              return all;
            });
  }
}
