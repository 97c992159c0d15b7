package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Random upserts and retractions of one writer, in every row kind, with flushes, minor and full
 * compactions and commits: the read after each commit equals a model map, and a final full
 * compaction leaves no retraction in any file (issue 19).
 */
class RowKindPropertyTest {

  sealed interface Action permits Upsert, Retract, Flush, Compact, Commit {}

  /** {@code +I}, {@code +U}, or the pair {@code -U}, {@code +U}. */
  record Upsert(int key, int style) implements Action {}

  /** {@code -D} or {@code -U} alone (the key may not exist). */
  record Retract(int key, boolean delete) implements Action {}

  record Flush() implements Action {}

  record Compact(boolean full) implements Action {}

  record Commit() implements Action {}

  @Property(tries = 30)
  void readsEqualTheModelAndFullCompactionDropsRetractions(@ForAll("actions") List<Action> actions)
      throws Exception {
    TestTables.inTempDirectory("lockstep-rowkind", dir -> run(dir, actions));
  }

  private static void run(Path dir, List<Action> actions) throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir, Map.of("num-sorted-run.compaction-trigger", "3", "write-buffer-size", "1 kb"));
    Map<Integer, String> model = new TreeMap<>();
    Map<Integer, String> pending = new TreeMap<>(model);
    TableCommit commit = table.newCommit("u");
    long identifier = 0;
    int step = 0;
    try (TableWrite write = table.newWrite("u")) {
      for (Action action : actions) {
        step++;
        if (action instanceof Upsert u) {
          String value = "s" + step;
          GenericRow row = GenericRow.of(u.key(), value);
          switch (u.style()) {
            case 0 -> write.write(row);
            case 1 -> write.write(RowKind.UPDATE_AFTER, row);
            default -> {
              write.write(RowKind.UPDATE_BEFORE, GenericRow.of(u.key(), pending.get(u.key())));
              write.write(RowKind.UPDATE_AFTER, row);
            }
          }
          pending.put(u.key(), value);
        } else if (action instanceof Retract r) {
          write.write(
              r.delete() ? RowKind.DELETE : RowKind.UPDATE_BEFORE,
              GenericRow.of(r.key(), pending.get(r.key())));
          pending.remove(r.key());
        } else if (action instanceof Flush) {
          write.flush();
        } else if (action instanceof Compact c) {
          write.compact(c.full());
        } else {
          commit.commit(++identifier, write.prepareCommit());
          model = new TreeMap<>(pending);
          assertThat(TestTables.readKeyValues(table))
              .as("after step %d of %s", step, actions)
              .isEqualTo(model);
        }
      }
    }
    try (TableCompactor compactor = table.newCompactor("c")) {
      compactor.compactOnce(true);
    }
    assertThat(TestTables.readKeyValues(table))
        .as("after a full compaction of %s", actions)
        .isEqualTo(model);
    assertThat(RowKindTest.retractionsInFiles(table)).as("retractions left in files").isZero();
    assertThat(RowKindTest.rowsInFiles(table)).as("rows in files").isEqualTo(model.size());
    table.close();
  }

  @Provide
  Arbitrary<List<Action>> actions() {
    Arbitrary<Integer> key = Arbitraries.integers().between(0, 19);
    Arbitrary<Action> upsert =
        key.flatMap(k -> Arbitraries.integers().between(0, 2).map(style -> new Upsert(k, style)));
    Arbitrary<Action> retract =
        key.flatMap(k -> Arbitraries.of(true, false).map(delete -> new Retract(k, delete)));
    Arbitrary<Action> flush = Arbitraries.just(new Flush());
    Arbitrary<Action> compact = Arbitraries.of(true, false).map(Compact::new);
    Arbitrary<Action> commit = Arbitraries.just(new Commit());
    return Arbitraries.frequencyOf(
            Tuple.of(10, upsert),
            Tuple.of(5, retract),
            Tuple.of(2, flush),
            Tuple.of(2, compact),
            Tuple.of(4, commit))
        .list()
        .ofMinSize(5)
        .ofMaxSize(60)
        .map(
            list -> {
              List<Action> all = new ArrayList<>(list);
              all.add(new Commit());
              return all;
            });
  }
}
