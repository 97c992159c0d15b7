package dev.lockstep.flink.table;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.catalog.TableExistsException;
import dev.lockstep.engine.catalog.TableNotFoundException;
import dev.lockstep.engine.schema.SchemaManager;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.source.LockstepSource;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;
import org.apache.flink.table.factories.Factory;

/**
 * {@code CREATE CATALOG lake WITH ('type' = 'lockstep', 'warehouse' = '...', ...)}: the databases
 * ({@code <warehouse>/<db>.db}) and tables of a Lockstep warehouse. Every catalog option (store,
 * lock, commit strategy, table defaults) reaches every table, as in the engine's {@code
 * FileSystemCatalog}. Tables store physical columns, a primary key, partition keys and options;
 * {@code ALTER TABLE ... SET/RESET} changes options only (a new schema version). Database comments
 * and properties are not stored; views, functions and statistics are not supported.
 */
public final class LockstepCatalog extends AbstractCatalog {

  private final String warehouse;
  private final Map<String, String> options;
  private FileIO fileIO;
  private FileSystemCatalog catalog;

  public LockstepCatalog(
      String name, String defaultDatabase, String warehouse, Map<String, String> options) {
    super(name, defaultDatabase);
    this.warehouse = warehouse;
    this.options = Map.copyOf(options);
  }

  @Override
  public void open() throws CatalogException {
    try {
      fileIO = FileIODiscovery.open(Path.of(warehouse), options);
      catalog = new FileSystemCatalog(fileIO, Path.of(warehouse), options);
      if (!databaseExists(getDefaultDatabase())) {
        fileIO.mkdirs(databasePath(getDefaultDatabase()));
      }
    } catch (IOException e) {
      throw new CatalogException(
          "Cannot open the warehouse " + warehouse + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() throws CatalogException {
    if (fileIO != null) {
      try {
        fileIO.close();
      } catch (IOException e) {
        throw new CatalogException("Cannot close the store of " + warehouse, e);
      }
    }
  }

  @Override
  public Optional<Factory> getFactory() {
    return Optional.of(new LockstepTableFactory(warehouse, options));
  }

  private Path databasePath(String database) {
    return Path.of(warehouse).child(database + ".db");
  }

  private static Identifier id(ObjectPath path) {
    return new Identifier(path.getDatabaseName(), path.getObjectName());
  }

  // ---- databases

  @Override
  public List<String> listDatabases() throws CatalogException {
    try {
      List<String> names = new ArrayList<>();
      for (FileStatus s : fileIO.list(Path.of(warehouse))) {
        String n = s.path().name();
        if (s.directory() && n.endsWith(".db")) {
          names.add(n.substring(0, n.length() - 3));
        }
      }
      names.sort(null);
      return names;
    } catch (IOException e) {
      throw new CatalogException("Cannot list " + warehouse + ": " + e.getMessage(), e);
    }
  }

  @Override
  public CatalogDatabase getDatabase(String databaseName)
      throws DatabaseNotExistException, CatalogException {
    if (!databaseExists(databaseName)) {
      throw new DatabaseNotExistException(getName(), databaseName);
    }
    return new CatalogDatabaseImpl(Map.of(), null);
  }

  @Override
  public boolean databaseExists(String databaseName) throws CatalogException {
    try {
      return fileIO.exists(databasePath(databaseName));
    } catch (IOException e) {
      throw new CatalogException(e.getMessage(), e);
    }
  }

  @Override
  public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists)
      throws DatabaseAlreadyExistException, CatalogException {
    if (databaseExists(name)) {
      if (ignoreIfExists) {
        return;
      }
      throw new DatabaseAlreadyExistException(getName(), name);
    }
    try {
      fileIO.mkdirs(databasePath(name));
    } catch (IOException e) {
      throw new CatalogException("Cannot create database " + name + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
      throws DatabaseNotExistException, DatabaseNotEmptyException, CatalogException {
    if (!databaseExists(name)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new DatabaseNotExistException(getName(), name);
    }
    try {
      List<String> tables = catalog.listTables(name);
      if (!tables.isEmpty() && !cascade) {
        throw new DatabaseNotEmptyException(getName(), name);
      }
      for (String t : tables) {
        catalog.dropTable(new Identifier(name, t));
      }
      fileIO.delete(databasePath(name), true);
    } catch (IOException e) {
      throw new CatalogException("Cannot drop database " + name + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists)
      throws DatabaseNotExistException, CatalogException {
    throw new CatalogException("Lockstep databases have no properties to alter.");
  }

  // ---- tables

  @Override
  public List<String> listTables(String databaseName)
      throws DatabaseNotExistException, CatalogException {
    if (!databaseExists(databaseName)) {
      throw new DatabaseNotExistException(getName(), databaseName);
    }
    try {
      return catalog.listTables(databaseName);
    } catch (IOException e) {
      throw new CatalogException(e.getMessage(), e);
    }
  }

  @Override
  public List<String> listViews(String databaseName) throws CatalogException {
    return List.of();
  }

  @Override
  public CatalogBaseTable getTable(ObjectPath tablePath)
      throws TableNotExistException, CatalogException {
    try (FileStoreTable table = catalog.getTable(id(tablePath))) {
      TableSchema schema = table.schema();
      return CatalogTable.newBuilder()
          .schema(FlinkTypes.toFlink(schema))
          .partitionKeys(schema.partitionKeys())
          .options(schema.options())
          .build();
    } catch (TableNotFoundException e) {
      throw new TableNotExistException(getName(), tablePath);
    } catch (IOException e) {
      throw new CatalogException("Cannot read " + tablePath + ": " + e.getMessage(), e);
    }
  }

  @Override
  public boolean tableExists(ObjectPath tablePath) throws CatalogException {
    try {
      return catalog.tableExists(id(tablePath));
    } catch (IOException e) {
      throw new CatalogException(e.getMessage(), e);
    }
  }

  @Override
  public void dropTable(ObjectPath tablePath, boolean ignoreIfNotExists)
      throws TableNotExistException, CatalogException {
    try {
      catalog.dropTable(id(tablePath));
    } catch (TableNotFoundException e) {
      if (!ignoreIfNotExists) {
        throw new TableNotExistException(getName(), tablePath);
      }
    } catch (IOException e) {
      throw new CatalogException("Cannot drop " + tablePath + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void renameTable(ObjectPath tablePath, String newTableName, boolean ignoreIfNotExists)
      throws CatalogException {
    throw new CatalogException(
        "Lockstep tables cannot be renamed (their path is their name):"
            + " create the new table and INSERT INTO it from the old one.");
  }

  @Override
  public void createTable(ObjectPath tablePath, CatalogBaseTable table, boolean ignoreIfExists)
      throws TableAlreadyExistException, DatabaseNotExistException, CatalogException {
    if (!(table instanceof ResolvedCatalogTable)) {
      throw new CatalogException(
          "Only tables can be created in a Lockstep catalog, not " + table.getTableKind());
    }
    if (!databaseExists(tablePath.getDatabaseName())) {
      throw new DatabaseNotExistException(getName(), tablePath.getDatabaseName());
    }
    Map<String, String> tableOptions = new HashMap<>(table.getOptions());
    tableOptions.keySet().removeAll(LockstepTableFactory.CONNECTOR_KEYS);
    try {
      catalog
          .createTable(
              id(tablePath), FlinkTypes.toEngine((ResolvedCatalogTable) table, tableOptions))
          .close();
    } catch (TableExistsException e) {
      if (!ignoreIfExists) {
        throw new TableAlreadyExistException(getName(), tablePath);
      }
    } catch (IllegalArgumentException e) {
      throw new CatalogException("Cannot create " + tablePath + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CatalogException("Cannot create " + tablePath + ": " + e.getMessage(), e);
    }
  }

  /**
   * Changes a table's options (a new schema version with the same columns and keys). Changes of
   * columns, keys or partitioning are refused: the engine has no schema evolution yet.
   */
  @Override
  public void alterTable(ObjectPath tablePath, CatalogBaseTable newTable, boolean ignoreIfNotExists)
      throws TableNotExistException, CatalogException {
    if (!tableExists(tablePath)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new TableNotExistException(getName(), tablePath);
    }
    try (FileStoreTable table = catalog.getTable(id(tablePath))) {
      TableSchema current = table.schema();
      Map<String, String> newOptions = new HashMap<>(newTable.getOptions());
      newOptions.keySet().removeAll(LockstepTableFactory.CONNECTOR_KEYS);
      TableSchema wanted =
          TableSchema.of(
              current.id() + 1,
              FlinkTypes.toEngine((ResolvedCatalogTable) newTable, newOptions),
              System.currentTimeMillis());
      if (!wanted.fields().equals(current.fields())
          || !wanted.primaryKeys().equals(current.primaryKeys())
          || !wanted.partitionKeys().equals(current.partitionKeys())) {
        throw new CatalogException(
            "ALTER TABLE "
                + tablePath
                + " may change options only:"
                + " Lockstep tables have no schema evolution yet (columns, primary key and partition"
                + " keys stay as created).");
      }
      Map<String, String> merged = new HashMap<>(options);
      merged.putAll(newOptions);
      CoreOptions.from(merged);
      new SchemaManager(fileIO, catalog.tablePath(id(tablePath))).create(wanted);
    } catch (IllegalArgumentException e) {
      throw new CatalogException("Cannot alter " + tablePath + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CatalogException("Cannot alter " + tablePath + ": " + e.getMessage(), e);
    }
  }

  // ---- partitions

  @Override
  public List<CatalogPartitionSpec> listPartitions(ObjectPath tablePath)
      throws TableNotExistException, TableNotPartitionedException, CatalogException {
    return listPartitions(tablePath, null);
  }

  @Override
  public List<CatalogPartitionSpec> listPartitions(
      ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
      throws TableNotExistException, TableNotPartitionedException, CatalogException {
    if (!tableExists(tablePath)) {
      throw new TableNotExistException(getName(), tablePath);
    }
    try {
      List<CatalogPartitionSpec> out = new ArrayList<>();
      for (Map<String, String> p :
          LockstepSource.partitions(new TableLoader(warehouse, options, id(tablePath)), null)) {
        if (partitionSpec == null
            || p.entrySet().containsAll(partitionSpec.getPartitionSpec().entrySet())) {
          out.add(new CatalogPartitionSpec(p));
        }
      }
      return out;
    } catch (IOException e) {
      throw new CatalogException(e.getMessage(), e);
    }
  }

  @Override
  public List<CatalogPartitionSpec> listPartitionsByFilter(
      ObjectPath tablePath, List<Expression> filters) throws CatalogException {
    throw new UnsupportedOperationException("Lockstep lists partitions through its table source");
  }

  @Override
  public CatalogPartition getPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
      throws PartitionNotExistException, CatalogException {
    throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
  }

  @Override
  public boolean partitionExists(ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
      throws CatalogException {
    try {
      return listPartitions(tablePath, partitionSpec).size() > 0;
    } catch (TableNotExistException | TableNotPartitionedException e) {
      return false;
    }
  }

  @Override
  public void createPartition(
      ObjectPath tablePath,
      CatalogPartitionSpec partitionSpec,
      CatalogPartition partition,
      boolean ignoreIfExists)
      throws CatalogException {
    throw new CatalogException("Partitions of Lockstep tables exist through their rows.");
  }

  @Override
  public void dropPartition(
      ObjectPath tablePath, CatalogPartitionSpec partitionSpec, boolean ignoreIfNotExists)
      throws CatalogException {
    throw new CatalogException(
        "Drop a partition of a Lockstep table with INSERT OVERWRITE"
            + " ... PARTITION (...) SELECT ... WHERE FALSE.");
  }

  @Override
  public void alterPartition(
      ObjectPath tablePath,
      CatalogPartitionSpec partitionSpec,
      CatalogPartition newPartition,
      boolean ignoreIfNotExists)
      throws CatalogException {
    throw new CatalogException("Partitions of Lockstep tables have no properties.");
  }

  // ---- functions and statistics: none

  @Override
  public List<String> listFunctions(String dbName) throws CatalogException {
    return List.of();
  }

  @Override
  public CatalogFunction getFunction(ObjectPath functionPath)
      throws FunctionNotExistException, CatalogException {
    throw new FunctionNotExistException(getName(), functionPath);
  }

  @Override
  public boolean functionExists(ObjectPath functionPath) throws CatalogException {
    return false;
  }

  @Override
  public void createFunction(
      ObjectPath functionPath, CatalogFunction function, boolean ignoreIfExists)
      throws CatalogException {
    throw new CatalogException("A Lockstep catalog stores no functions.");
  }

  @Override
  public void alterFunction(
      ObjectPath functionPath, CatalogFunction newFunction, boolean ignoreIfNotExists)
      throws CatalogException {
    throw new CatalogException("A Lockstep catalog stores no functions.");
  }

  @Override
  public void dropFunction(ObjectPath functionPath, boolean ignoreIfNotExists)
      throws CatalogException {
    throw new CatalogException("A Lockstep catalog stores no functions.");
  }

  @Override
  public CatalogTableStatistics getTableStatistics(ObjectPath tablePath) {
    return CatalogTableStatistics.UNKNOWN;
  }

  @Override
  public CatalogColumnStatistics getTableColumnStatistics(ObjectPath tablePath) {
    return CatalogColumnStatistics.UNKNOWN;
  }

  @Override
  public CatalogTableStatistics getPartitionStatistics(
      ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
    return CatalogTableStatistics.UNKNOWN;
  }

  @Override
  public CatalogColumnStatistics getPartitionColumnStatistics(
      ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
    return CatalogColumnStatistics.UNKNOWN;
  }

  @Override
  public void alterTableStatistics(
      ObjectPath tablePath, CatalogTableStatistics tableStatistics, boolean ignoreIfNotExists)
      throws CatalogException {
    throw new CatalogException("A Lockstep catalog stores no statistics.");
  }

  @Override
  public void alterTableColumnStatistics(
      ObjectPath tablePath, CatalogColumnStatistics columnStatistics, boolean ignoreIfNotExists)
      throws CatalogException {
    throw new CatalogException("A Lockstep catalog stores no statistics.");
  }

  @Override
  public void alterPartitionStatistics(
      ObjectPath tablePath,
      CatalogPartitionSpec partitionSpec,
      CatalogTableStatistics partitionStatistics,
      boolean ignoreIfNotExists)
      throws CatalogException {
    throw new CatalogException("A Lockstep catalog stores no statistics.");
  }

  @Override
  public void alterPartitionColumnStatistics(
      ObjectPath tablePath,
      CatalogPartitionSpec partitionSpec,
      CatalogColumnStatistics columnStatistics,
      boolean ignoreIfNotExists)
      throws CatalogException {
    throw new CatalogException("A Lockstep catalog stores no statistics.");
  }
}
