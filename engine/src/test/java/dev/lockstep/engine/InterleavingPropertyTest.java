package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random interleavings of writes, deletes, flushes, compactions and commits from two writers on one
 * primary-key bucket read back exactly as a model map in which each commit applies its writes in
 * order and later commits win.
 */
class InterleavingPropertyTest {

  /** One step of one writer. */
  sealed interface Action permits Write, Delete, Flush, Compact, Commit {}

  record Write(int writer, int key) implements Action {}

  record Delete(int writer, int key) implements Action {}

  record Flush(int writer) implements Action {}

  record Compact(int writer, boolean full) implements Action {}

  record Commit(int writer) implements Action {}

  @Property(tries = 25)
  void twoWritersReadBackTheModel(@ForAll("actions") List<Action> actions) throws Exception {
    TestTables.inTempDirectory("lockstep-interleaving", dir -> run(dir, actions));
  }

  private static void run(Path dir, List<Action> actions) throws IOException {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir, Map.of("num-sorted-run.compaction-trigger", "3", "write-buffer-size", "1 kb"));
    TableWrite[] writes = {table.newWrite("a"), table.newWrite("b")};
    TableCommit[] commits = {table.newCommit("a"), table.newCommit("b")};
    long[] identifiers = {0, 0};
    List<Map<Integer, String>> pending = List.of(new LinkedHashMap<>(), new LinkedHashMap<>());
    Map<Integer, String> model = new TreeMap<>();
    int step = 0;
    try {
      for (Action action : actions) {
        step++;
        if (action instanceof Write w) {
          String value = "w" + w.writer() + "-s" + step;
          // Row kinds (issue 19): +I and +U upsert alike.
          writes[w.writer()].write(
              step % 2 == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER, GenericRow.of(w.key(), value));
          pending.get(w.writer()).remove(w.key());
          pending.get(w.writer()).put(w.key(), value);
        } else if (action instanceof Delete d) {
          // -D and a -U without its +U both remove the key.
          writes[d.writer()].write(
              step % 3 == 0 ? RowKind.UPDATE_BEFORE : RowKind.DELETE, GenericRow.of(d.key(), null));
          pending.get(d.writer()).remove(d.key());
          pending.get(d.writer()).put(d.key(), null);
        } else if (action instanceof Flush f) {
          writes[f.writer()].flush();
        } else if (action instanceof Compact c) {
          writes[c.writer()].compact(c.full());
        } else if (action instanceof Commit c) {
          int w = c.writer();
          commits[w].commit(++identifiers[w], writes[w].prepareCommit());
          pending
              .get(w)
              .forEach(
                  (k, v) -> {
                    if (v == null) {
                      model.remove(k);
                    } else {
                      model.put(k, v);
                    }
                  });
          pending.get(w).clear();
          assertThat(TestTables.readKeyValues(table))
              .as("after step %d of %s", step, actions)
              .isEqualTo(model);
        }
      }
      assertThat(TestTables.readKeyValues(table)).isEqualTo(model);
    } finally {
      writes[0].close();
      writes[1].close();
      table.close();
    }
  }

  @Provide
  Arbitrary<List<Action>> actions() {
    Arbitrary<Integer> writer = Arbitraries.integers().between(0, 1);
    Arbitrary<Action> write =
        Arbitraries.integers()
            .between(0, 1)
            .flatMap(w -> Arbitraries.integers().between(0, 15).map(k -> new Write(w, k)));
    Arbitrary<Action> delete =
        Arbitraries.integers()
            .between(0, 1)
            .flatMap(w -> Arbitraries.integers().between(0, 15).map(k -> new Delete(w, k)));
    Arbitrary<Action> flush = writer.map(Flush::new);
    Arbitrary<Action> compact =
        writer.flatMap(w -> Arbitraries.of(true, false).map(full -> new Compact(w, full)));
    Arbitrary<Action> commit = writer.map(Commit::new);
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(10, write),
            net.jqwik.api.Tuple.of(3, delete),
            net.jqwik.api.Tuple.of(2, flush),
            net.jqwik.api.Tuple.of(2, compact),
            net.jqwik.api.Tuple.of(4, commit))
        .list()
        .ofMinSize(5)
        .ofMaxSize(40)
        .map(
            list -> {
              List<Action> all = new ArrayList<>(list);
              all.add(new Commit(0));
              all.add(new Commit(1));
              return all;
            });
  }
}
