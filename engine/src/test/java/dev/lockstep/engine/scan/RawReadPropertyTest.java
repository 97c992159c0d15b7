package dev.lockstep.engine.scan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.PredicateBuilder;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Raw reads of primary-key buckets (docs/engine.md, "Raw reads of primary-key buckets"): under
 * random interleavings of two writers' inserts, updates ({@code +U}), retractions ({@code -U},
 * {@code -D}), flushes, minor and full compactions and commits, after every commit and after a
 * final full compaction, the table read of every split (raw where its files are disjoint in key,
 * merged otherwise, with deletion vectors where the table has them) returns exactly the merge read
 * of the split's files ({@link DeduplicateMerger}, winners that are not retractions): the same
 * rows, in the same order, with the same kinds, and with a random filter and projection the merge
 * read filtered and projected. Parquet and Avro files, one and two buckets, {@code sequence.field},
 * deletion vectors.
 */
class RawReadPropertyTest {

  sealed interface Action permits Write, Delete, Flush, Compact, Commit {}

  record Write(int writer, int key, long ts) implements Action {}

  record Delete(int writer, int key) implements Action {}

  record Flush(int writer) implements Action {}

  record Compact(int writer, boolean full) implements Action {}

  record Commit(int writer) implements Action {}

  @Property(tries = 40)
  void readsEqualTheMergeRead(
      @ForAll("actions") List<Action> actions,
      @ForAll @IntRange(min = 0, max = 15) int setup,
      @ForAll long seed)
      throws Exception {
    Map<String, String> options = new HashMap<>();
    options.put("num-sorted-run.compaction-trigger", "3");
    options.put("write-buffer-size", "1 kb");
    options.put("file.format", (setup & 1) == 0 ? "parquet" : "avro");
    options.put("bucket", (setup & 2) == 0 ? "1" : "2");
    if ((setup & 4) != 0) {
      options.put("sequence.field", "ts");
    }
    if ((setup & 8) != 0) {
      options.put("deletion-vectors.enabled", "true");
    }
    // Small pages, so that filters skip pages inside the files the raw read reads.
    options.put("parquet.page.size", "64 b");
    TestTables.inTempDirectory("lockstep-raw", dir -> run(dir, actions, options, seed));
  }

  private static void run(Path dir, List<Action> actions, Map<String, String> options, long seed)
      throws Exception {
    FileStoreTable table =
        TestTables.catalog(dir)
            .createTable(
                new Identifier("db", "t"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .column("ts", DataType.bigint())
                    .primaryKey("k")
                    .options(options)
                    .build());
    Random random = new Random(seed);
    TableWrite[] writes = {table.newWrite("a"), table.newWrite("b")};
    TableCommit[] commits = {table.newCommit("a"), table.newCommit("b")};
    long[] identifiers = {0, 0};
    int step = 0;
    // With deletion vectors the rows come file by file: compared as sets of rows.
    boolean ordered = !options.containsKey("deletion-vectors.enabled");
    try {
      for (Action action : actions) {
        step++;
        if (action instanceof Write w) {
          GenericRow row = GenericRow.of(w.key(), "w" + w.writer() + "-s" + step, w.ts());
          writes[w.writer()].write(step % 2 == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER, row);
        } else if (action instanceof Delete d) {
          RowKind kind = step % 3 == 0 ? RowKind.UPDATE_BEFORE : RowKind.DELETE;
          writes[d.writer()].write(kind, GenericRow.of(d.key(), null, 5L));
        } else if (action instanceof Flush f) {
          writes[f.writer()].flush();
        } else if (action instanceof Compact c) {
          writes[c.writer()].compact(c.full());
        } else if (action instanceof Commit c) {
          int w = c.writer();
          commits[w].commit(++identifiers[w], writes[w].prepareCommit());
          check(table, random, ordered, "step " + step + " of " + actions);
        }
      }
      try (TableCompactor compactor = new TableCompactor(table, "compactor")) {
        compactor.compactOnce(true);
      }
      int afterFull = check(table, random, ordered, "after a full compaction of " + actions);
      assertThat(afterFull)
          .as("every bucket is one run after a full compaction")
          .isEqualTo(table.newScan().plan().splits().size());
    } finally {
      for (TableWrite w : writes) {
        w.close();
      }
      table.close();
    }
  }

  /**
   * Compares the table read of every split of the latest snapshot with the merge read of its files,
   * unfiltered and with three random filters and projections; returns the number of splits whose
   * files are disjoint in key (read raw unless deletion vectors cover them).
   */
  private static int check(FileStoreTable table, Random random, boolean ordered, String as)
      throws IOException {
    int disjoint = 0;
    PredicateBuilder b = new PredicateBuilder(table.schema().rowType());
    for (Split split : table.newScan().plan().splits()) {
      if (Pushdown.disjointInKeyOrder(table, split.files()) != null) {
        disjoint++;
      }
      // With deletion vectors the rows come file by file: compared as sets of rows.
      List<String> merged = mergeRead(table, split, null, null, ordered);
      assertThat(read(table.newRead(), split, ordered))
          .as("%s, split %s", as, split)
          .isEqualTo(merged);
      for (int round = 0; round < 3; round++) {
        Predicate filter = randomFilter(random, b);
        int[] projection = random.nextBoolean() ? null : randomProjection(random);
        TableRead read = table.newRead().withFilter(filter).withMetrics(new ScanMetrics());
        if (projection != null) {
          String[] names = new String[projection.length];
          for (int i = 0; i < names.length; i++) {
            names[i] = table.schema().rowType().field(projection[i]).name();
          }
          read.withProjection(names);
        }
        assertThat(read(read, split, ordered))
            .as("%s, split %s, filter %s, projection %s", as, split, filter, projection)
            .isEqualTo(mergeRead(table, split, filter, projection, ordered));
      }
    }
    return disjoint;
  }

  private static List<String> read(TableRead read, Split split, boolean ordered)
      throws IOException {
    List<String> rows = new ArrayList<>();
    read.forEachWithKind(split, (kind, row) -> rows.add(kind.shortString() + row));
    if (!ordered) {
      rows.sort(null);
    }
    return rows;
  }

  /** The merge of the split's files: winners that are not retractions, in key order. */
  private static List<String> mergeRead(
      FileStoreTable table, Split split, Predicate filter, int[] projection, boolean ordered)
      throws IOException {
    List<String> rows = new ArrayList<>();
    try (DeduplicateMerger merger =
        new DeduplicateMerger(table, split.partition(), split.bucket(), split.files())) {
      for (KeyValue kv = merger.next(); kv != null; kv = merger.next()) {
        if (kv.deleted() || (filter != null && !filter.test(kv.row()))) {
          continue;
        }
        GenericRow row = projection == null ? kv.row() : kv.row().project(projection);
        rows.add(kv.kind().shortString() + row);
      }
    }
    if (!ordered) {
      rows.sort(null);
    }
    return rows;
  }

  private static Predicate randomFilter(Random random, PredicateBuilder b) {
    Predicate p =
        switch (random.nextInt(6)) {
          case 0 -> b.greaterOrEqual("k", random.nextInt(16));
          case 1 -> b.lessThan("k", random.nextInt(16));
          case 2 -> b.lessOrEqual("ts", (long) random.nextInt(10));
          case 3 -> b.isNull("v");
          case 4 -> b.greaterThan("v", "w1");
          default -> b.notEqual("ts", 5L);
        };
    return random.nextInt(3) == 0
        ? PredicateBuilder.or(p, b.equal("k", random.nextInt(16)))
        : random.nextInt(4) == 0 ? PredicateBuilder.not(p) : p;
  }

  private static int[] randomProjection(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> new int[] {1};
      case 1 -> new int[] {2, 0};
      case 2 -> new int[] {0, 1, 2};
      default -> new int[] {1, 2};
    };
  }

  @Provide
  Arbitrary<List<Action>> actions() {
    Arbitrary<Integer> writer = Arbitraries.integers().between(0, 1);
    Arbitrary<Integer> key = Arbitraries.integers().between(0, 15);
    Arbitrary<Long> ts = Arbitraries.longs().between(0, 9);
    Arbitrary<Action> write = Combinators.combine(writer, key, ts).as(Write::new);
    Arbitrary<Action> delete = Combinators.combine(writer, key).as(Delete::new);
    Arbitrary<Action> flush = writer.map(Flush::new);
    Arbitrary<Action> compact =
        writer.flatMap(w -> Arbitraries.of(true, false).map(full -> new Compact(w, full)));
    Arbitrary<Action> commit = writer.map(Commit::new);
    return Arbitraries.frequencyOf(
            Tuple.of(10, write),
            Tuple.of(4, delete),
            Tuple.of(2, flush),
            Tuple.of(2, compact),
            Tuple.of(4, commit))
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
