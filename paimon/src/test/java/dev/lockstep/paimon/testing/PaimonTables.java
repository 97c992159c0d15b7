package dev.lockstep.paimon.testing;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

/** The append-only test table {@code (writer INT, seq INT)} through Paimon's Java API. */
public final class PaimonTables {

  private PaimonTables() {}

  public static Catalog catalog(Map<String, String> options) {
    return CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(options)));
  }

  /**
   * Creates the table. {@code write-only} keeps compaction and expiry out of the commits (each
   * snapshot is then one append); {@code commit.max-retries} is raised so that a writer that loses
   * many races in a row is not given up on (Paimon's default 10 is for fewer racing writers), with
   * a short retry wait.
   */
  public static void create(Map<String, String> options, String database, String table)
      throws Exception {
    try (Catalog catalog = catalog(options)) {
      catalog.createDatabase(database, true);
      catalog.createTable(
          Identifier.create(database, table),
          Schema.newBuilder()
              .column("writer", DataTypes.INT())
              .column("seq", DataTypes.INT())
              .option("bucket", "-1")
              .option("write-only", "true")
              .option("file.format", "avro")
              .option("commit.max-retries", "1000")
              .option("commit.min-retry-wait", "5 ms")
              .option("commit.max-retry-wait", "200 ms")
              .build(),
          false);
    }
  }

  /** Every row, as seqs per writer. */
  public static Map<Integer, Set<Integer>> rows(
      Map<String, String> options, String database, String table) throws Exception {
    Map<Integer, Set<Integer>> rows = new TreeMap<>();
    try (Catalog catalog = catalog(options)) {
      ReadBuilder read = catalog.getTable(Identifier.create(database, table)).newReadBuilder();
      try (RecordReader<InternalRow> reader =
          read.newRead().createReader(read.newScan().plan().splits())) {
        reader.forEachRemaining(
            row -> rows.computeIfAbsent(row.getInt(0), w -> new TreeSet<>()).add(row.getInt(1)));
      }
    }
    return rows;
  }

  /** The number of rows read, duplicates included (which {@link #rows} folds into its sets). */
  public static long rowsRead(Map<String, String> options, String database, String table)
      throws Exception {
    long[] count = new long[1];
    try (Catalog catalog = catalog(options)) {
      ReadBuilder read = catalog.getTable(Identifier.create(database, table)).newReadBuilder();
      try (RecordReader<InternalRow> reader =
          read.newRead().createReader(read.newScan().plan().splits())) {
        reader.forEachRemaining(row -> count[0]++);
      }
    }
    return count[0];
  }

  public static int rowCount(Map<Integer, Set<Integer>> rows) {
    return rows.values().stream().mapToInt(Set::size).sum();
  }

  /** The number of snapshot files of the table. */
  public static int snapshotFiles(Map<String, String> options, String database, String table)
      throws Exception {
    try (Catalog catalog = catalog(options)) {
      FileStoreTable fileStoreTable =
          (FileStoreTable) catalog.getTable(Identifier.create(database, table));
      Path directory = new Path(fileStoreTable.location(), "snapshot");
      int count = 0;
      for (FileStatus status : fileStoreTable.fileIO().listStatus(directory)) {
        if (status.getPath().getName().startsWith("snapshot-")) {
          count++;
        }
      }
      return count;
    }
  }

  /** The id of the latest snapshot, or 0. */
  public static long latestSnapshotId(Map<String, String> options, String database, String table)
      throws Exception {
    try (Catalog catalog = catalog(options)) {
      FileStoreTable fileStoreTable =
          (FileStoreTable) catalog.getTable(Identifier.create(database, table));
      Long latest = fileStoreTable.snapshotManager().latestSnapshotId();
      return latest == null ? 0 : latest;
    }
  }
}
