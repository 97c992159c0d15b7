package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
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
 * {@code sequence.field} under random interleavings of two writers: upserts with random, repeated
 * and NULL sequence values arrive out of order, with flushes, minor and full compactions and
 * commits. After every commit the table equals a model that keeps per key the row with the greatest
 * (ts, commit order, write order), NULL smallest (issue 19). Retractions are left out: a retraction
 * dropped at the highest level is forgotten by design (README, "Row kinds and sequence.field"),
 * which RowKindTest shows on its own.
 */
class SequenceFieldPropertyTest {

  sealed interface Action permits Upsert, Flush, Compact, Commit {}

  record Upsert(int writer, int key, Long ts, boolean updateAfter) implements Action {}

  record Flush(int writer) implements Action {}

  record Compact(int writer, boolean full) implements Action {}

  record Commit(int writer) implements Action {}

  /** A row as the model keeps it. */
  record Row(Long ts, String value) {}

  @Property(tries = 25)
  void theGreatestSequenceValueWinsAcrossWritersFlushesAndCompactions(
      @ForAll("actions") List<Action> actions) throws Exception {
    TestTables.inTempDirectory("lockstep-sequence", dir -> run(dir, actions));
  }

  private static void run(Path dir, List<Action> actions) throws Exception {
    FileStoreTable table =
        TestTables.catalog(dir)
            .createTable(
                new Identifier("db", "seq"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .column("ts", DataType.bigint())
                    .primaryKey("k")
                    .option("sequence.field", "ts")
                    .option("num-sorted-run.compaction-trigger", "3")
                    .option("write-buffer-size", "1 kb")
                    .build());
    TableWrite[] writes = {table.newWrite("a"), table.newWrite("b")};
    TableCommit[] commits = {table.newCommit("a"), table.newCommit("b")};
    long[] identifiers = {0, 0};
    List<List<Map.Entry<Integer, Row>>> pending = List.of(new ArrayList<>(), new ArrayList<>());
    Map<Integer, Row> model = new TreeMap<>();
    int step = 0;
    try {
      for (Action action : actions) {
        step++;
        if (action instanceof Upsert u) {
          String value = "w" + u.writer() + "-s" + step;
          writes[u.writer()].write(
              u.updateAfter() ? RowKind.UPDATE_AFTER : RowKind.INSERT,
              GenericRow.of(u.key(), value, u.ts()));
          pending.get(u.writer()).add(Map.entry(u.key(), new Row(u.ts(), value)));
        } else if (action instanceof Flush f) {
          writes[f.writer()].flush();
        } else if (action instanceof Compact c) {
          writes[c.writer()].compact(c.full());
        } else if (action instanceof Commit c) {
          int w = c.writer();
          commits[w].commit(++identifiers[w], writes[w].prepareCommit());
          for (Map.Entry<Integer, Row> e : pending.get(w)) {
            Row old = model.get(e.getKey());
            if (old == null || compare(e.getValue().ts(), old.ts()) >= 0) {
              model.put(e.getKey(), e.getValue());
            }
          }
          pending.get(w).clear();
          assertThat(read(table)).as("after step %d of %s", step, actions).isEqualTo(model);
        }
      }
      try (TableCompactor compactor = table.newCompactor("c")) {
        compactor.compactOnce(true);
      }
      assertThat(read(table)).as("after a full compaction of %s", actions).isEqualTo(model);
    } finally {
      writes[0].close();
      writes[1].close();
      table.close();
    }
  }

  /** NULL is the smallest sequence value. */
  private static int compare(Long a, Long b) {
    return a == null ? (b == null ? 0 : -1) : b == null ? 1 : Long.compare(a, b);
  }

  private static Map<Integer, Row> read(FileStoreTable table) throws Exception {
    Map<Integer, Row> rows = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      assertThat(rows.put((Integer) row.get(0), new Row((Long) row.get(2), (String) row.get(1))))
          .as("key %s read twice", row.get(0))
          .isNull();
    }
    return rows;
  }

  @Provide
  Arbitrary<List<Action>> actions() {
    Arbitrary<Integer> writer = Arbitraries.integers().between(0, 1);
    Arbitrary<Long> ts = Arbitraries.longs().between(0, 5).injectNull(0.15);
    Arbitrary<Action> upsert =
        net.jqwik.api.Combinators.combine(
                writer, Arbitraries.integers().between(0, 11), ts, Arbitraries.of(true, false))
            .as(Upsert::new);
    Arbitrary<Action> flush = writer.map(Flush::new);
    Arbitrary<Action> compact =
        writer.flatMap(w -> Arbitraries.of(true, false).map(full -> new Compact(w, full)));
    Arbitrary<Action> commit = writer.map(Commit::new);
    return Arbitraries.frequencyOf(
            Tuple.of(10, upsert), Tuple.of(2, flush), Tuple.of(2, compact), Tuple.of(4, commit))
        .list()
        .ofMinSize(5)
        .ofMaxSize(50)
        .map(
            list -> {
              List<Action> all = new ArrayList<>(list);
              all.add(new Commit(0));
              all.add(new Commit(1));
              return all;
            });
  }
}
