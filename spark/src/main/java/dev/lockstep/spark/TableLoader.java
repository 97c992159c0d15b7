package dev.lockstep.spark;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything an executor needs to open a table again: the warehouse, the catalog options (store,
 * lock and table options as configured on the Spark catalog) and the table's name. Tables are not
 * serialized; each task opens its own from these.
 */
final class TableLoader implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String warehouse;
  private final TreeMap<String, String> options;
  private final String database;
  private final String table;

  TableLoader(String warehouse, Map<String, String> options, Identifier identifier) {
    this.warehouse = warehouse;
    this.options = new TreeMap<>(options);
    this.database = identifier.database();
    this.table = identifier.table();
  }

  Identifier identifier() {
    return new Identifier(database, table);
  }

  /** The catalog over the warehouse; the caller closes the returned FileIO. */
  static FileSystemCatalog openCatalog(FileIO io, String warehouse, Map<String, String> options) {
    return new FileSystemCatalog(io, Path.of(warehouse), options);
  }

  static FileIO openFileIO(String warehouse, Map<String, String> options) {
    try {
      return FileIODiscovery.open(Path.of(warehouse), options);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot open the Lockstep warehouse " + warehouse + ": " + e.getMessage(), e);
    }
  }

  /** Opens the table with its own FileIO; closing the returned handle closes both. */
  Opened open(Map<String, String> extraOptions) throws IOException {
    FileIO io = openFileIO(warehouse, options);
    try {
      FileStoreTable t = openCatalog(io, warehouse, options).getTable(identifier());
      if (!extraOptions.isEmpty()) {
        t = t.copyWithOptions(extraOptions);
      }
      return new Opened(io, t);
    } catch (IOException | RuntimeException e) {
      io.close();
      throw e;
    }
  }

  /** A table and the FileIO it was opened with. */
  record Opened(FileIO io, FileStoreTable table) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      try {
        table.close();
      } finally {
        io.close();
      }
    }
  }
}
