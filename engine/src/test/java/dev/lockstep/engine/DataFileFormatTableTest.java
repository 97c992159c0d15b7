package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.schema.SchemaManager;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code file.format} on tables: new tables are Parquet, tables stored without the option stay
 * Avro, and a table whose format changes reads the same rows from files of both formats.
 */
class DataFileFormatTableTest {

  @TempDir java.nio.file.Path dir;

  private static final Identifier ORDERS = new Identifier("shop", "orders");

  /** Every column type; primary key (day, id), partitioned by day. */
  private static Schema ordersSchema(Map<String, String> options) {
    return Schema.newBuilder()
        .column("day", DataType.date())
        .column("id", DataType.bigint())
        .column("n", DataType.intType())
        .column("price", DataType.doubleType())
        .column("paid", DataType.booleanType())
        .column("note", DataType.string())
        .column("raw", DataType.bytes())
        .column("small", DataType.decimal(9, 2))
        .column("amount", DataType.decimal(18, 4))
        .column("big", DataType.decimal(38, 10))
        .column("at", DataType.timestamp())
        .partitionKeys("day")
        .primaryKey("day", "id")
        .options(options)
        .build();
  }

  @Test
  void newTablesAreStoredAndWrittenAsParquet() throws Exception {
    FileStoreTable kv = TestTables.keyValueTable(dir, Map.of());
    FileStoreTable log = TestTables.appendTable(dir, Map.of());
    assertThat(kv.schema().options()).containsEntry(CoreOptions.FILE_FORMAT, "parquet");
    assertThat(log.schema().options()).containsEntry(CoreOptions.FILE_FORMAT, "parquet");
    assertThat(kv.options().fileCompression()).isEqualTo("zstd");
    commit(kv, 1, w -> w.write(GenericRow.of(1, "one")));
    commit(log, 1, w -> w.write(GenericRow.of("w", 1L)));
    assertThat(extensions(kv)).containsExactly("parquet");
    assertThat(extensions(log)).containsExactly("parquet");
    assertThat(TestTables.readKeyValues(kv)).isEqualTo(Map.of(1, "one"));
    assertThat(log.newRead().readAll(log.newScan().plan())).containsExactly(GenericRow.of("w", 1L));
    // Manifests stay Avro.
    assertThat(new LocalFileIO().list(Path.of(kv.path().toString()).child("manifest")))
        .allSatisfy(f -> assertThat(f.path().name()).endsWith(".avro"));
  }

  @Test
  void aCatalogOrTableOptionChoosesTheFormatOfANewTable() throws Exception {
    FileSystemCatalog avroCatalog =
        new FileSystemCatalog(
            new LocalFileIO(), Path.of(dir.toString()), Map.of(CoreOptions.FILE_FORMAT, "avro"));
    FileStoreTable table = avroCatalog.createTable(ORDERS, ordersSchema(Map.of()));
    assertThat(table.schema().options()).containsEntry(CoreOptions.FILE_FORMAT, "avro");
    assertThat(table.options().fileCompression())
        .as("Avro's default, as before")
        .isEqualTo("deflate");
    FileStoreTable parquet =
        avroCatalog.createTable(
            new Identifier("shop", "p"),
            ordersSchema(
                Map.of(
                    CoreOptions.FILE_FORMAT, "parquet", CoreOptions.FILE_COMPRESSION, "snappy")));
    assertThat(parquet.schema().options()).containsEntry(CoreOptions.FILE_FORMAT, "parquet");
    assertThatThrownBy(
            () ->
                avroCatalog.createTable(
                    new Identifier("shop", "bad"),
                    ordersSchema(Map.of(CoreOptions.FILE_COMPRESSION, "lz4"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'file.compression'")
        .hasMessageContaining("lz4 is for");
    assertThatThrownBy(
            () ->
                avroCatalog.createTable(
                    new Identifier("shop", "bad"),
                    ordersSchema(Map.of(CoreOptions.FILE_FORMAT, "orc"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'file.format'")
        .hasMessageContaining("'parquet' or 'avro'");
  }

  @Test
  void aTableStoredWithoutTheOptionKeepsWritingAvro() throws Exception {
    // A table created before Parquet data files: its schema file has no file.format.
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Schema schema = ordersSchema(Map.of("bucket", "2"));
    new SchemaManager(new LocalFileIO(), catalog.tablePath(ORDERS))
        .create(TableSchema.of(0, schema, System.currentTimeMillis()));
    FileStoreTable table = catalog.getTable(ORDERS);
    assertThat(table.schema().options()).doesNotContainKey(CoreOptions.FILE_FORMAT);
    Map<List<Object>, GenericRow> model = new TreeMap<>(KEY_ORDER);
    writeRandom(table, model, 1, 3, new Random(1));
    assertThat(extensions(table)).containsExactly("avro");
    assertThat(read(table)).isEqualTo(new ArrayList<>(model.values()));
  }

  @Test
  void aTableSwitchedFromAvroToParquetReadsTheSameRows() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    // Writers that never compact, so that files of both formats stay until the compactor runs.
    FileStoreTable avro =
        catalog.createTable(
            ORDERS,
            ordersSchema(
                Map.of(CoreOptions.FILE_FORMAT, "avro", "bucket", "2", "write-only", "true")));
    Map<List<Object>, GenericRow> model = new TreeMap<>(KEY_ORDER);
    Random random = new Random(20);
    writeRandom(avro, model, 1, 5, random);
    assertThat(extensions(avro)).containsExactly("avro");
    List<GenericRow> beforeSwitch = read(avro);
    assertThat(beforeSwitch).isEqualTo(new ArrayList<>(model.values()));

    FileStoreTable parquet = avro.copyWithOptions(Map.of(CoreOptions.FILE_FORMAT, "parquet"));
    assertThat(read(parquet))
        .as("the same rows, read through the Parquet table object")
        .isEqualTo(beforeSwitch);
    writeRandom(parquet, model, 6, 10, random);
    assertThat(extensions(parquet)).containsExactlyInAnyOrder("avro", "parquet");
    List<GenericRow> expected = new ArrayList<>(model.values());
    assertThat(read(parquet)).isEqualTo(expected);
    assertThat(read(catalog.getTable(ORDERS)))
        .as("and through the stored (Avro) table")
        .isEqualTo(expected);

    // A full compaction merges files of both formats into Parquet files.
    try (TableCompactor compactor = parquet.newCompactor("compactor")) {
      assertThat(compactor.compactOnce(true)).isPresent();
    }
    assertThat(extensions(parquet)).containsExactly("parquet");
    assertThat(read(parquet)).isEqualTo(expected);

    // And back: Avro files again beside the Parquet ones.
    writeRandom(catalog.getTable(ORDERS), model, 11, 12, random);
    assertThat(extensions(parquet)).containsExactlyInAnyOrder("avro", "parquet");
    assertThat(read(parquet)).isEqualTo(new ArrayList<>(model.values()));
  }

  @Test
  void anAppendTableSwitchedToParquetReadsTheSameRows() throws Exception {
    FileStoreTable avro = TestTables.appendTable(dir, Map.of(CoreOptions.FILE_FORMAT, "avro"));
    List<GenericRow> written = new ArrayList<>();
    commit(
        avro,
        1,
        w -> {
          for (long n = 0; n < 500; n++) {
            written.add(GenericRow.of("avro", n));
            w.write(written.get(written.size() - 1));
          }
        });
    FileStoreTable parquet = avro.copyWithOptions(Map.of(CoreOptions.FILE_FORMAT, "parquet"));
    commit(
        parquet,
        2,
        w -> {
          for (long n = 0; n < 500; n++) {
            written.add(GenericRow.of(n % 3 == 0 ? null : "parquet", n));
            w.write(written.get(written.size() - 1));
          }
        });
    assertThat(extensions(parquet)).containsExactlyInAnyOrder("avro", "parquet");
    assertThat(avro.newRead().readAll(avro.newScan().plan()))
        .containsExactlyInAnyOrderElementsOf(written);
  }

  private static final Comparator<List<Object>> KEY_ORDER =
      Comparator.comparing((List<Object> k) -> (LocalDate) k.get(0))
          .thenComparing(k -> (Long) k.get(1));

  /** Commits {@code first..last}: random upserts and deletes over a small key space. */
  private static void writeRandom(
      FileStoreTable table,
      Map<List<Object>, GenericRow> model,
      long first,
      long last,
      Random random)
      throws Exception {
    TableCommit commit = table.newCommit("writer");
    try (TableWrite write = table.newWrite("writer")) {
      for (long id = first; id <= last; id++) {
        for (int i = 0; i < 200; i++) {
          LocalDate day = LocalDate.of(2024, 5, 1 + random.nextInt(3));
          long key = random.nextInt(150);
          if (random.nextInt(6) == 0) {
            write.delete(
                GenericRow.of(day, key, null, null, null, null, null, null, null, null, null));
            model.remove(List.of(day, key));
          } else {
            GenericRow row = randomRow(day, key, random);
            write.write(row);
            model.put(List.of(day, key), row);
          }
        }
        commit.commit(id, write.prepareCommit());
      }
    }
  }

  private static GenericRow randomRow(LocalDate day, long id, Random random) {
    Object[] v = {
      day,
      id,
      random.nextInt(),
      random.nextDouble() * 1000,
      random.nextBoolean(),
      "note " + random.nextInt(50),
      new byte[] {(byte) random.nextInt(), 7},
      BigDecimal.valueOf(random.nextInt(1_000_000), 2),
      BigDecimal.valueOf(random.nextLong() % 100_000_000_000_000L, 4),
      new BigDecimal(new java.math.BigInteger(100, random), 10).negate(),
      LocalDateTime.of(2024, 5, 1, 0, 0).plusNanos(random.nextInt(1_000_000_000) * 1000L)
    };
    for (int i = 2; i < v.length; i++) {
      if (random.nextInt(7) == 0) {
        v[i] = null;
      }
    }
    return GenericRow.wrap(v);
  }

  /** The table's rows in key order (the model's order). */
  private static List<GenericRow> read(FileStoreTable table) throws IOException {
    List<GenericRow> rows = new ArrayList<>(table.newRead().readAll(table.newScan().plan()));
    rows.sort(
        (a, b) -> KEY_ORDER.compare(List.of(a.get(0), a.get(1)), List.of(b.get(0), b.get(1))));
    return rows;
  }

  private interface Writes {
    void to(TableWrite write) throws Exception;
  }

  private static void commit(FileStoreTable table, long id, Writes writes) throws Exception {
    try (TableWrite write = table.newWrite("u")) {
      writes.to(write);
      table.newCommit("u").commit(id, write.prepareCommit());
    }
  }

  /** The extensions of the live data files of the latest snapshot. */
  private static Set<String> extensions(FileStoreTable table) throws IOException {
    Set<String> extensions = new HashSet<>();
    for (Split split : table.newScan().plan().splits()) {
      for (DataFileMeta file : split.files()) {
        extensions.add(file.fileName().substring(file.fileName().lastIndexOf('.') + 1));
      }
    }
    return extensions;
  }
}
