package dev.lockstep.engine.catalog;

import dev.lockstep.catalog.CatalogOptions;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.schema.SchemaManager;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Tables in a warehouse directory on any {@link FileIO}: {@code
 * <warehouse>/<database>.db/<table>/}. The table exists when its {@code schema/schema-0} exists;
 * creating it is one atomic create of that file (where the store has atomic create or rename), so
 * two racing creators get one winner.
 *
 * <p>The catalog's options (lock, commit strategy, store settings) reach every table; a table's own
 * options override them. Both are checked against every option declared on the class path ({@link
 * CatalogOptions}): an unknown or misspelt key is refused with the nearest known key, as the
 * command line refuses it, instead of being ignored.
 */
public final class FileSystemCatalog {

  private final FileIO fileIO;
  private final Path warehouse;
  private final Map<String, String> options;

  /**
   * @throws dev.lockstep.options.UnknownOptionException when no component on the class path reads a
   *     key of {@code options}, naming the nearest known key
   */
  public FileSystemCatalog(FileIO fileIO, Path warehouse, Map<String, String> options) {
    CatalogOptions.check(options);
    this.fileIO = fileIO;
    this.warehouse = warehouse;
    // The commit protocol's once-per-endpoint atomic-create probe records its verdict under the
    // warehouse, so every table of the warehouse (and every later process) shares it.
    Map<String, String> withWarehouse = new HashMap<>(options);
    withWarehouse.putIfAbsent(
        dev.lockstep.engine.table.EngineOptions.WAREHOUSE.key(), warehouse.toString());
    this.options = Map.copyOf(withWarehouse);
  }

  public Path tablePath(Identifier identifier) {
    return warehouse.child(identifier.database() + ".db").child(identifier.table());
  }

  /**
   * Creates a table.
   *
   * <ul>
   *   <li>After success: {@code schema-0} exists; no snapshot yet.
   *   <li>After {@link TableExistsException}: the existing table is unchanged.
   * </ul>
   *
   * @throws IllegalArgumentException when the schema or its options are invalid, naming the fix
   */
  public FileStoreTable createTable(Identifier identifier, Schema schema) throws IOException {
    Map<String, String> merged = new HashMap<>(options);
    merged.putAll(schema.options());
    CatalogOptions.check(schema.options());
    // A new table is Parquet unless an option says otherwise; a table stored without the key (one
    // created before Parquet data files) stays Avro (CoreOptions.FILE_FORMAT).
    merged.putIfAbsent(CoreOptions.FILE_FORMAT, CoreOptions.FILE_FORMAT_NEW_TABLE);
    CoreOptions core = CoreOptions.from(merged);
    // The bucket count, the file format and sequence.field are stored with the table, whoever
    // writes it later and with what catalog options.
    Map<String, String> stored = new java.util.LinkedHashMap<>(schema.options());
    stored.putIfAbsent(CoreOptions.BUCKET, Integer.toString(core.bucket()));
    stored.putIfAbsent(CoreOptions.FILE_FORMAT, core.fileFormat());
    if (merged.containsKey(CoreOptions.SEQUENCE_FIELD)) {
      stored.putIfAbsent(CoreOptions.SEQUENCE_FIELD, merged.get(CoreOptions.SEQUENCE_FIELD));
    }
    if (!stored.equals(schema.options())) {
      schema = new Schema(schema.fields(), schema.partitionKeys(), schema.primaryKeys(), stored);
    }
    TableSchema tableSchema = TableSchema.of(0, schema, System.currentTimeMillis());
    // Checked before anything is written: a bad sequence.field leaves no table behind.
    TableStore.sequenceFieldIndexes(tableSchema, core.sequenceFields());
    core.statsModes(tableSchema.rowType());
    Path path = tablePath(identifier);
    SchemaManager schemas = new SchemaManager(fileIO, path);
    try {
      schemas.create(tableSchema);
    } catch (FileAlreadyExistsException e) {
      throw new TableExistsException(identifier, path.toString());
    }
    return new FileStoreTable(fileIO, path, identifier.fullName(), tableSchema, options);
  }

  /** Loads a table at its newest schema. @throws TableNotFoundException when it does not exist */
  public FileStoreTable getTable(Identifier identifier) throws IOException {
    Path path = tablePath(identifier);
    Optional<TableSchema> schema = new SchemaManager(fileIO, path).latest();
    if (schema.isEmpty()) {
      throw new TableNotFoundException(identifier, path.toString());
    }
    return new FileStoreTable(fileIO, path, identifier.fullName(), schema.get(), options);
  }

  public boolean tableExists(Identifier identifier) throws IOException {
    return !new SchemaManager(fileIO, tablePath(identifier)).listIds().isEmpty();
  }

  /** The tables of a database, by name. */
  public List<String> listTables(String database) throws IOException {
    List<String> names = new ArrayList<>();
    for (FileStatus status : fileIO.list(warehouse.child(database + ".db"))) {
      if (status.directory() && tableExists(new Identifier(database, status.path().name()))) {
        names.add(status.path().name());
      }
    }
    names.sort(null);
    return names;
  }

  /**
   * Drops a table: deletes its directory with every snapshot and data file. Writers still running
   * on it will fail. The schema is deleted first, so a half-finished drop leaves no loadable table.
   *
   * @throws TableNotFoundException when it does not exist
   */
  public void dropTable(Identifier identifier) throws IOException {
    Path path = tablePath(identifier);
    if (!tableExists(identifier)) {
      throw new TableNotFoundException(identifier, path.toString());
    }
    fileIO.delete(path.child("schema"), true);
    fileIO.delete(path, true);
  }
}
