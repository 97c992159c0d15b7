package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write buffer sorts on flush: for every key shape, the table must hold exactly the last write
 * (or delete) of each key within a batch, in key order, whatever the buffer size.
 */
class WriteBufferOrderTest {

  @TempDir Path dir;

  @Test
  void intKeysWithTiesNegativesAndDeletes() throws Exception {
    check("ints", DataType.intType(), null, r -> r.nextInt(401) - 200);
  }

  @Test
  void intLeadingCompositeKey() throws Exception {
    check("composite", DataType.intType(), DataType.string(), r -> r.nextInt(21) - 10);
  }

  @Test
  void bigintLeadingCompositeKey() throws Exception {
    check("bigcomposite", DataType.bigint(), DataType.string(), r -> (long) r.nextInt(21) - 10);
  }

  @Test
  void stringKeys() throws Exception {
    check("strings", DataType.string(), null, r -> "k" + r.nextInt(300));
  }

  @Test
  void bigintKeysAtTheExtremes() throws Exception {
    check(
        "bigints",
        DataType.bigint(),
        null,
        r ->
            switch (r.nextInt(4)) {
              case 0 -> Long.MIN_VALUE + r.nextInt(5);
              case 1 -> Long.MAX_VALUE - r.nextInt(5);
              default -> (long) r.nextInt(300) - 150;
            });
  }

  private interface KeyGen {
    Object next(Random random);
  }

  private void check(String name, DataType first, DataType second, KeyGen keys) throws Exception {
    Schema.Builder schema = Schema.newBuilder().column("a", first);
    List<String> keyColumns = new ArrayList<>(List.of("a"));
    if (second != null) {
      schema.column("b", second);
      keyColumns.add("b");
    }
    schema
        .column("v", DataType.bigint())
        .primaryKey(keyColumns.toArray(new String[0]))
        .option("bucket", "2")
        .option("write-buffer-size", "4 kb");
    FileStoreTable table =
        TestTables.catalog(dir).createTable(new Identifier("db", name), schema.build());
    Random random = new Random(42);
    TreeMap<GenericRow, GenericRow> model = new TreeMap<>(RowComparator.INSTANCE);
    try (TableWrite write = table.newWrite("u")) {
      for (int batch = 1; batch <= 3; batch++) {
        for (int i = 0; i < 3000; i++) {
          Object a = keys.next(random);
          Object b = second == null ? null : "b" + random.nextInt(3);
          GenericRow key = second == null ? GenericRow.of(a) : GenericRow.of(a, b);
          GenericRow row =
              second == null
                  ? GenericRow.of(a, (long) (batch * 100_000 + i))
                  : GenericRow.of(a, b, (long) (batch * 100_000 + i));
          if (random.nextInt(10) == 0) {
            write.delete(row);
            model.remove(key);
          } else {
            write.write(row);
            model.put(key, row);
          }
        }
        table.newCommit("u").commit(batch, write.prepareCommit());
      }
    }
    List<GenericRow> read = table.newRead().readAll(table.newScan().plan());
    read.sort(
        (x, y) -> RowComparator.compare(x, y, second == null ? new int[] {0} : new int[] {0, 1}));
    assertThat(read).containsExactlyElementsOf(model.values());
  }

  @Test
  void eachBucketIsReadInKeyOrder() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of("write-buffer-size", "2 kb"));
    Random random = new Random(7);
    try (TableWrite write = table.newWrite("u")) {
      for (int i = 0; i < 2000; i++) {
        write.write(GenericRow.of(random.nextInt(), "v" + i));
      }
      table.newCommit("u").commit(1, write.prepareCommit());
    }
    for (var split : table.newScan().plan().splits()) {
      List<GenericRow> rows = table.newRead().read(split);
      for (int i = 1; i < rows.size(); i++) {
        assertThat((Integer) rows.get(i - 1).get(0)).isLessThan((Integer) rows.get(i).get(0));
      }
    }
  }
}
