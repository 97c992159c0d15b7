package dev.lockstep.engine;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Builds tables in a temporary warehouse on the local store, and reads them back. */
public final class TestTables {

  private TestTables() {}

  /** The duration of the timed stress tests ({@code -Dlockstep.stress.seconds}, default 20). */
  public static long stressMillis() {
    String value = System.getProperty("lockstep.stress.seconds", "20");
    return (long) (Double.parseDouble(value.isBlank() ? "20" : value) * 1000);
  }

  public static FileSystemCatalog catalog(java.nio.file.Path dir) {
    return new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of());
  }

  /** {@code db.kv}: k INT primary key, v STRING, optional options. */
  public static FileStoreTable keyValueTable(java.nio.file.Path dir, Map<String, String> options)
      throws IOException {
    return keyValueTable(dir, options, new LocalFileIO());
  }

  /** {@code db.kv} as {@link #keyValueTable(java.nio.file.Path, Map)}, on the store {@code io}. */
  public static FileStoreTable keyValueTable(
      java.nio.file.Path dir, Map<String, String> options, FileIO io) throws IOException {
    return new FileSystemCatalog(io, Path.of(dir.toString()), Map.of())
        .createTable(
            new Identifier("db", "kv"),
            Schema.newBuilder()
                .column("k", DataType.intType())
                .column("v", DataType.string())
                .primaryKey("k")
                .options(options)
                .build());
  }

  /** {@code db.log}: writer STRING, n BIGINT, append only. */
  public static FileStoreTable appendTable(java.nio.file.Path dir, Map<String, String> options)
      throws IOException {
    return catalog(dir)
        .createTable(
            new Identifier("db", "log"),
            Schema.newBuilder()
                .column("writer", DataType.string())
                .column("n", DataType.bigint())
                .options(options)
                .build());
  }

  /** A test body that works in a directory. */
  public interface InDirectory {
    void run(java.nio.file.Path dir) throws Exception;
  }

  /**
   * Runs {@code body} in a fresh temporary directory and deletes it afterwards: for jqwik
   * properties, whose tries cannot share a JUnit {@code @TempDir}.
   */
  public static void inTempDirectory(String prefix, InDirectory body) throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory(prefix);
    try {
      body.run(dir);
    } finally {
      try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** The merged content of a (k INT, v STRING) primary-key table at the latest snapshot. */
  public static Map<Integer, String> readKeyValues(FileStoreTable table) throws IOException {
    List<GenericRow> rows = table.newRead().readAll(table.newScan().plan());
    Map<Integer, String> map = new TreeMap<>();
    for (GenericRow row : rows) {
      if (map.put((Integer) row.get(0), (String) row.get(1)) != null) {
        throw new AssertionError("Key " + row.get(0) + " read twice");
      }
    }
    return map;
  }
}
