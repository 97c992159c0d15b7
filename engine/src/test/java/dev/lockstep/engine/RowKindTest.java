package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.format.FormatWriter;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Row kinds (+I, -U, +U, -D) and {@code sequence.field} (issue 19). */
class RowKindTest {

  @TempDir Path dir;

  @Test
  void retractionsRemoveTheKeyAndReadsShowTheWinningKind() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of());
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      for (int k = 0; k < 6; k++) {
        write.write(GenericRow.of(k, "v" + k));
      }
      commit.commit(1, write.prepareCommit());
      write.write(RowKind.UPDATE_BEFORE, GenericRow.of(1, "v1"));
      write.write(RowKind.UPDATE_AFTER, GenericRow.of(1, "v1 updated"));
      write.write(RowKind.UPDATE_BEFORE, GenericRow.of(2, "v2")); // -U alone: the key goes
      write.write(RowKind.DELETE, GenericRow.of(3, null));
      write.delete(GenericRow.of(99, null)); // a key that never existed
      write.write(RowKind.DELETE, GenericRow.of(4, null));
      write.write(RowKind.INSERT, GenericRow.of(4, "back"));
      write.write(RowKind.UPDATE_AFTER, GenericRow.of(5, "upsert without -U"));
      commit.commit(2, write.prepareCommit());
    }
    Map<Integer, String> expected =
        new TreeMap<>(Map.of(0, "v0", 1, "v1 updated", 4, "back", 5, "upsert without -U"));
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
    assertThat(kinds(table))
        .isEqualTo(
            Map.of(
                0,
                RowKind.INSERT,
                1,
                RowKind.UPDATE_AFTER,
                4,
                RowKind.INSERT,
                5,
                RowKind.UPDATE_AFTER));
    try (TableCompactor compactor = table.newCompactor("c")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
    assertThat(kinds(table))
        .as("compaction keeps each winner's kind")
        .containsEntry(1, RowKind.UPDATE_AFTER)
        .containsEntry(0, RowKind.INSERT);
  }

  @Test
  void retractionsStayUntilTheOutputIsAtTheHighestLevel() throws Exception {
    // trigger 2, 4 levels: a minor compaction of two level-0 runs writes below the highest level.
    // The level-3 file holds 2,000 keys, so that the two small level-0 files are no match for it
    // in size and the pick (three runs, one more than the trigger) does not grow into it.
    FileStoreTable table =
        TestTables.keyValueTable(
            dir,
            Map.of(
                "num-sorted-run.compaction-trigger", "2", "num-levels", "4", "write-only", "true"));
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      for (int k = 0; k < 2000; k++) {
        write.write(GenericRow.of(k, "v" + k));
      }
      commit.commit(1, write.prepareCommit());
    }
    try (TableCompactor compactor = table.newCompactor("c")) {
      assertThat(compactor.compactOnce(true)).isPresent(); // level 3: the highest
    }
    try (TableWrite write = table.newWrite("u")) {
      for (int k = 0; k < 20; k += 2) {
        write.write(k % 4 == 0 ? RowKind.DELETE : RowKind.UPDATE_BEFORE, GenericRow.of(k, null));
      }
      commit.commit(2, write.prepareCommit());
      write.write(GenericRow.of(5000, "new"));
      commit.commit(3, write.prepareCommit());
    }
    try (TableCompactor compactor = table.newCompactor("c")) {
      assertThat(compactor.compactOnce(false)).isPresent(); // the two level-0 runs, to level 2
    }
    assertThat(levels(table)).containsExactlyInAnyOrder(2, 3);
    assertThat(retractionsInFiles(table))
        .as(
            "a level-2 output keeps the retractions: the level-3"
                + " file below still holds the keys")
        .isEqualTo(10);
    Map<Integer, String> expected = new TreeMap<>();
    for (int k = 0; k < 2000; k++) {
      if (k >= 20 || k % 2 == 1) {
        expected.put(k, "v" + k);
      }
    }
    expected.put(5000, "new");
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);

    try (TableCompactor compactor = table.newCompactor("c")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    assertThat(levels(table)).containsExactly(3);
    assertThat(retractionsInFiles(table)).as("dropped at the highest level").isZero();
    assertThat(rowsInFiles(table)).isEqualTo(expected.size());
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
  }

  @Test
  void filesOfTheLayoutBeforeRowKindsReadAsInsertOrDelete() throws Exception {
    // Files of that layout are Avro: Parquet data files came with _ROW_KIND.
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of("file.format", "avro"));
    // The data-file columns as they were before _ROW_KIND: k, v, _SNAPSHOT, _SEQUENCE, _DELETED.
    List<DataField> fields = new ArrayList<>(table.dataFileRowType().fields());
    assertThat(fields.remove(fields.size() - 1).name()).isEqualTo("_ROW_KIND");
    RowType oldLayout = new RowType(fields);
    String name = "data-old-layout.avro";
    dev.lockstep.fs.Path path = table.bucketPath("", 0).child(name);
    try (FormatWriter writer = table.format().createWriter(table.fileIO(), path, oldLayout)) {
      writer.write(GenericRow.of(1, "inserted", -1L, 0L, false));
      writer.write(GenericRow.of(2, null, -1L, 1L, true));
      writer.write(GenericRow.of(3, "kept", -1L, 2L, false));
    }
    try (FormatReader reader =
        table.format().createReader(table.fileIO(), path, table.dataFileRowType())) {
      GenericRow first = reader.next();
      assertThat(first.size()).isEqualTo(6);
      assertThat(first.get(5)).as("_ROW_KIND of an old file").isNull();
      assertThat(table.rowKindOf(first)).isEqualTo(RowKind.INSERT);
      assertThat(table.rowKindOf(reader.next())).isEqualTo(RowKind.DELETE);
    }
    // An older snapshot holds key 2; the old-layout file deletes it.
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of(2, "before the old file"));
      commit.commit(1, write.prepareCommit());
    }
    long size = table.fileIO().getStatus(path).length();
    DataFileMeta meta =
        new DataFileMeta(
            name,
            size,
            3,
            table.keyCodec().encode(GenericRow.of(1)),
            table.keyCodec().encode(GenericRow.of(3)),
            0,
            2,
            table.schema().id(),
            0,
            System.currentTimeMillis(),
            DataFileMeta.UNCOMMITTED);
    commit.commit(2, List.of(new CommitMessage("", 0, 1, List.of(meta), List.of(), List.of(), 1)));
    Map<Integer, String> expected = Map.of(1, "inserted", 3, "kept");
    assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
    assertThat(kinds(table)).isEqualTo(Map.of(1, RowKind.INSERT, 3, RowKind.INSERT));
    try (TableWrite write = table.newWrite("u")) {
      write.write(RowKind.UPDATE_AFTER, GenericRow.of(3, "updated"));
      commit.commit(3, write.prepareCommit());
    }
    try (TableCompactor compactor = table.newCompactor("c")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    assertThat(TestTables.readKeyValues(table)).isEqualTo(Map.of(1, "inserted", 3, "updated"));
    assertThat(rowsInFiles(table)).isEqualTo(2);
  }

  @Test
  void appendTablesRefuseRetractionsAndTakeUpdateAfterAsARow() throws Exception {
    FileStoreTable table = TestTables.appendTable(dir, Map.of());
    try (TableWrite write = table.newWrite("u")) {
      for (RowKind kind : List.of(RowKind.DELETE, RowKind.UPDATE_BEFORE)) {
        assertThatThrownBy(() -> write.write(kind, GenericRow.of("w", 1L)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(
                "db.log is an append table: it keeps every row and has no key to remove,"
                    + " so it refuses "
                    + kind.shortString()
                    + " rows; write only +I and +U to it, or"
                    + " use a primary-key table for changes.");
      }
      assertThatThrownBy(() -> write.delete(GenericRow.of("w", 1L)))
          .hasMessageContaining("refuses -D rows");
      assertThat(write.prepareCommit()).as("nothing buffered").isEmpty();
      write.write(RowKind.INSERT, GenericRow.of("w", 1L));
      write.write(RowKind.UPDATE_AFTER, GenericRow.of("w", 2L));
      table.newCommit("u").commit(1, write.prepareCommit());
    }
    assertThat(table.newRead().readAll(table.newScan().plan()))
        .containsExactlyInAnyOrder(GenericRow.of("w", 1L), GenericRow.of("w", 2L));
  }

  @Test
  void theLastCommittedWinsAcrossCommitUsersWithDeletes() throws Exception {
    FileStoreTable table = TestTables.keyValueTable(dir, Map.of("write-buffer-size", "1 kb"));
    TableCommit commitA = table.newCommit("a");
    TableCommit commitB = table.newCommit("b");
    try (TableWrite a = table.newWrite("a");
        TableWrite b = table.newWrite("b")) {
      // a writes and flushes first, b deletes and upserts later; b commits first, then a.
      for (int k = 0; k < 10; k++) {
        a.write(GenericRow.of(k, "a1"));
      }
      a.flush();
      for (int k = 0; k < 10; k++) {
        if (k < 5) {
          b.delete(GenericRow.of(k, null));
        } else {
          b.write(RowKind.UPDATE_AFTER, GenericRow.of(k, "b1"));
        }
      }
      commitB.commit(1, b.prepareCommit());
      commitA.commit(1, a.prepareCommit());
      Map<Integer, String> expected = new TreeMap<>();
      for (int k = 0; k < 10; k++) {
        expected.put(k, "a1");
      }
      assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);

      // a deletes 0..4 and b upserts 3..7; a commits first, then b.
      for (int k = 0; k < 5; k++) {
        a.delete(GenericRow.of(k, null));
      }
      for (int k = 3; k < 8; k++) {
        b.write(RowKind.UPDATE_BEFORE, GenericRow.of(k, "a1"));
        b.write(RowKind.UPDATE_AFTER, GenericRow.of(k, "b2"));
      }
      b.flush();
      commitA.commit(2, a.prepareCommit());
      commitB.commit(2, b.prepareCommit());
      for (int k = 0; k < 3; k++) {
        expected.remove(k);
      }
      for (int k = 3; k < 8; k++) {
        expected.put(k, "b2");
      }
      assertThat(TestTables.readKeyValues(table)).isEqualTo(expected);
      // And a deletes them all again, committed last.
      for (int k = 0; k < 10; k++) {
        a.delete(GenericRow.of(k, null));
      }
      commitA.commit(3, a.prepareCommit());
      assertThat(TestTables.readKeyValues(table)).isEmpty();
    }
    try (TableCompactor compactor = table.newCompactor("c")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    assertThat(TestTables.readKeyValues(table)).isEmpty();
    assertThat(rowsInFiles(table)).as("every delete dropped by the full compaction").isZero();
  }

  // ---- sequence.field ----

  private FileStoreTable sequencedTable(String sequenceField) throws Exception {
    return TestTables.catalog(dir)
        .createTable(
            new Identifier("db", "seq"),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .column("ts", DataType.bigint())
                .column("flag", DataType.booleanType())
                .primaryKey("k")
                .option("sequence.field", sequenceField)
                .option("write-buffer-size", "1 kb")
                .build());
  }

  private static Map<Integer, String> values(FileStoreTable table) throws Exception {
    Map<Integer, String> map = new TreeMap<>();
    for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
      assertThat(map.put((Integer) row.get(0), (String) row.get(1))).isNull();
    }
    return map;
  }

  @Test
  void theGreatestSequenceFieldWinsWhateverTheArrival() throws Exception {
    FileStoreTable table = sequencedTable("ts");
    assertThat(table.schema().options()).containsEntry("sequence.field", "ts");
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      // One batch: later arrivals with smaller ts lose, in the buffer and across flushes.
      write.write(GenericRow.of(1, "ts 9", 9L, null));
      write.write(GenericRow.of(1, "ts 2, later", 2L, null));
      write.write(GenericRow.of(2, "ts 5", 5L, null));
      write.write(GenericRow.of(2, "ts 5, later", 5L, null)); // a tie: the later one
      write.write(GenericRow.of(3, "null ts", null, null));
      write.write(GenericRow.of(3, "ts 0", 0L, null)); // NULL is the smallest
      write.write(GenericRow.of(4, "ts 7", 7L, null));
      write.flush();
      write.write(GenericRow.of(4, "ts 6, later flush", 6L, null));
      write.write(GenericRow.of(5, "ts 1", 1L, null));
      commit.commit(1, write.prepareCommit());
      assertThat(values(table))
          .isEqualTo(Map.of(1, "ts 9", 2, "ts 5, later", 3, "ts 0", 4, "ts 7", 5, "ts 1"));
      // A later commit with a smaller ts loses; a delete loses or wins by its own ts.
      write.write(GenericRow.of(1, "ts 8, committed later", 8L, null));
      write.write(GenericRow.of(3, "null again", null, null));
      write.write(RowKind.DELETE, GenericRow.of(4, null, 3L, null));
      write.write(RowKind.DELETE, GenericRow.of(5, null, 10L, null));
      write.write(GenericRow.of(2, "ts 6", 6L, null));
      commit.commit(2, write.prepareCommit());
    }
    Map<Integer, String> expected = Map.of(1, "ts 9", 2, "ts 6", 3, "ts 0", 4, "ts 7");
    assertThat(values(table)).isEqualTo(expected);
    // The late commit's row and the delete of key 5 (ts 10) stay in the table until compacted.
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of(5, "ts 4, after the delete", 4L, null));
      commit.commit(3, write.prepareCommit());
    }
    assertThat(values(table)).as("the delete (ts 10) still hides the key").isEqualTo(expected);
    try (TableCompactor compactor = table.newCompactor("c")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    assertThat(values(table)).isEqualTo(expected);
    // Once a delete is compacted away at the highest level it is forgotten, as in Paimon: a row
    // that arrives later with a smaller sequence value than the delete's brings the key back.
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of(5, "ts 3, after the delete was dropped", 3L, null));
      commit.commit(4, write.prepareCommit());
    }
    assertThat(values(table)).containsEntry(5, "ts 3, after the delete was dropped");
  }

  @Test
  void severalSequenceFieldsCompareInOrder() throws Exception {
    FileStoreTable table =
        TestTables.catalog(dir)
            .createTable(
                new Identifier("db", "seq2"),
                Schema.newBuilder()
                    .column("k", DataType.intType())
                    .column("v", DataType.string())
                    .column("day", DataType.date())
                    .column("n", DataType.intType())
                    .primaryKey("k")
                    .option("sequence.field", "day, n")
                    .build());
    java.time.LocalDate d1 = java.time.LocalDate.of(2024, 5, 1);
    java.time.LocalDate d2 = d1.plusDays(1);
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      write.write(GenericRow.of(1, "d2 n1", d2, 1));
      commit.commit(1, write.prepareCommit());
      write.write(GenericRow.of(1, "d1 n9", d1, 9));
      write.write(GenericRow.of(1, "d2 n0", d2, 0));
      commit.commit(2, write.prepareCommit());
      assertThat(values(table)).isEqualTo(Map.of(1, "d2 n1"));
      write.write(GenericRow.of(1, "d2 n2", d2, 2));
      commit.commit(3, write.prepareCommit());
    }
    assertThat(values(table)).isEqualTo(Map.of(1, "d2 n2"));
  }

  @Test
  void sequenceFieldIsCheckedAtCreateWithOneLine() throws Exception {
    Map<String, String> cases = new LinkedHashMap<>();
    cases.put(
        "missing",
        "Option 'sequence.field' = 'missing' names column 'missing', which the"
            + " table does not have; name one of [k, v, ts, flag].");
    cases.put(
        "flag",
        "Option 'sequence.field' = 'flag' names column 'flag' of type BOOLEAN,"
            + " which does not order updates; name an INT, BIGINT, DOUBLE, DECIMAL, DATE, TIMESTAMP or"
            + " STRING column.");
    cases.put("ts,ts", "Option 'sequence.field' = 'ts,ts' names column 'ts' twice; name it once.");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      assertThatThrownBy(() -> sequencedTable(c.getKey()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(c.getValue());
      assertThat(dir.resolve("db.db").resolve("seq")).as("nothing written").doesNotExist();
    }
    assertThatThrownBy(() -> TestTables.appendTable(dir, Map.of("sequence.field", "n")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Option 'sequence.field' = 'n' needs a primary-key table; append tables keep"
                + " every row. Declare a primary key or drop the option.");
  }

  @Test
  void sequenceFieldIsStoredAndATableObjectCannotAskForAnother() throws Exception {
    FileStoreTable table = sequencedTable("ts");
    assertThat(table.copyWithOptions(Map.of("sequence.field", " ts")).sequenceFieldIndexes())
        .containsExactly(2);
    assertThatThrownBy(() -> table.copyWithOptions(Map.of("sequence.field", "v")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Table db.seq is stored with sequence.field=ts; option 'sequence.field=v'"
                + " would order its rows differently. Drop the 'sequence.field' option: it is set when"
                + " the table is created.");
    FileStoreTable plain = TestTables.keyValueTable(dir, Map.of());
    assertThatThrownBy(() -> plain.copyWithOptions(Map.of("sequence.field", "k")))
        .hasMessageStartingWith(
            "Table db.kv is stored with no sequence.field; option"
                + " 'sequence.field=k' would order");
    // A catalog default is stored with the table it creates.
    FileSystemCatalog catalog =
        new FileSystemCatalog(
            new LocalFileIO(),
            dev.lockstep.fs.Path.of(dir.toString()),
            Map.of("sequence.field", "ts"));
    FileStoreTable created =
        catalog.createTable(
            new Identifier("db", "fromcatalog"),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("ts", DataType.bigint())
                .primaryKey("k")
                .build());
    assertThat(created.schema().options()).containsEntry("sequence.field", "ts");
    assertThat(
            TestTables.catalog(dir)
                .getTable(new Identifier("db", "fromcatalog"))
                .sequenceFieldIndexes())
        .containsExactly(1);
  }

  // ---- helpers ----

  private static Map<Integer, RowKind> kinds(FileStoreTable table) throws Exception {
    Map<Integer, RowKind> kinds = new TreeMap<>();
    for (Split split : table.newScan().plan().splits()) {
      table.newRead().forEachWithKind(split, (kind, row) -> kinds.put((Integer) row.get(0), kind));
    }
    return kinds;
  }

  private static List<Integer> levels(FileStoreTable table) throws Exception {
    List<Integer> levels = new ArrayList<>();
    for (Split split : table.newScan().plan().splits()) {
      split.files().forEach(f -> levels.add(f.level()));
    }
    return levels;
  }

  /** Every data-file row of the live files, raw (no merge). */
  private static List<GenericRow> fileRows(FileStoreTable table) throws Exception {
    List<GenericRow> rows = new ArrayList<>();
    for (Split split : table.newScan().plan().splits()) {
      for (DataFileMeta file : split.files()) {
        try (FormatReader reader =
            table
                .format()
                .createReader(
                    table.fileIO(),
                    table.bucketPath(split.partition(), split.bucket()).child(file.fileName()),
                    table.dataFileRowType())) {
          for (GenericRow r = reader.next(); r != null; r = reader.next()) {
            rows.add(r);
          }
        }
      }
    }
    return rows;
  }

  static long retractionsInFiles(FileStoreTable table) throws Exception {
    return fileRows(table).stream().filter(r -> table.rowKindOf(r).isRetract()).count();
  }

  static long rowsInFiles(FileStoreTable table) throws Exception {
    return fileRows(table).size();
  }
}
