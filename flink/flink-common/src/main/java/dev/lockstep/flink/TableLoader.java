package dev.lockstep.flink;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.io.Closeable;
import java.io.IOException;
import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a task manager opens the table: the warehouse, the options (store, lock and table overrides)
 * and the table's identifier. It travels in the job graph; the store, the table and its committer
 * are opened where it is used ({@link #open()}) and closed with the returned handle.
 */
public final class TableLoader implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String warehouse;
  private final TreeMap<String, String> options;
  private final String database;
  private final String table;

  /**
   * @param options catalog options (store, lock, commit strategy) and table overrides; they are
   *     applied to the table with {@code copyWithOptions}, so they win over its stored options
   */
  public TableLoader(String warehouse, Map<String, String> options, Identifier identifier) {
    if (warehouse == null || warehouse.isBlank()) {
      throw new IllegalArgumentException(
          "Option '"
              + LockstepFlinkOptions.WAREHOUSE
              + "' is missing: set it to the warehouse directory, e.g. 'file:///data/warehouse'.");
    }
    this.warehouse = warehouse;
    this.options = new TreeMap<>(options);
    this.database = identifier.database();
    this.table = identifier.table();
  }

  public String warehouse() {
    return warehouse;
  }

  public Map<String, String> options() {
    return Map.copyOf(options);
  }

  public Identifier identifier() {
    return new Identifier(database, table);
  }

  /** The same table with {@code extra} options added (they win). */
  public TableLoader withOptions(Map<String, String> extra) {
    TreeMap<String, String> merged = new TreeMap<>(options);
    merged.putAll(extra);
    return new TableLoader(warehouse, merged, identifier());
  }

  /** Opens the store and the table. Close the handle to release both. */
  public Opened open() throws IOException {
    FileIO io = FileIODiscovery.open(Path.of(warehouse), options);
    try {
      FileSystemCatalog catalog = new FileSystemCatalog(io, Path.of(warehouse), options);
      FileStoreTable t = catalog.getTable(identifier()).copyWithOptions(options);
      return new Opened(io, t);
    } catch (IOException | RuntimeException e) {
      try {
        io.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** An open store and table; closing closes the table (its committer) and then the store. */
  public record Opened(FileIO fileIO, FileStoreTable table) implements Closeable {
    @Override
    public void close() throws IOException {
      try {
        table.close();
      } finally {
        fileIO.close();
      }
    }
  }

  @Override
  public String toString() {
    return warehouse + " " + database + "." + table;
  }
}
