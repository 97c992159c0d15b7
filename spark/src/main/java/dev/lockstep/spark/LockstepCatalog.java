package dev.lockstep.spark;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.TableExistsException;
import dev.lockstep.engine.catalog.TableNotFoundException;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.schema.SchemaManager;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.IdentityTransform;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Lockstep tables as a Spark catalog:
 *
 * <pre>
 * spark.sql.catalog.lake = dev.lockstep.spark.LockstepCatalog
 * spark.sql.catalog.lake.warehouse = s3://bucket/warehouse
 * spark.sql.catalog.lake.lock.enabled = true        # every other key goes to the engine as is
 * </pre>
 *
 * Namespaces are the warehouse's databases ({@code <warehouse>/<db>.db}), one level deep. Every
 * catalog option but {@code warehouse} is passed to the engine's {@link FileSystemCatalog}
 * unchanged: store options, {@code commit.strategy}, {@code lock.*}, and table defaults such as
 * {@code snapshot.time-retained}.
 */
public class LockstepCatalog implements TableCatalog, SupportsNamespaces {

  static final String WAREHOUSE = "warehouse";
  static final String PRIMARY_KEY = "primary-key";

  /** Table properties Spark adds itself; never stored as table options. */
  private static final Set<String> SPARK_RESERVED =
      Set.of(
          TableCatalog.PROP_PROVIDER,
          TableCatalog.PROP_OWNER,
          TableCatalog.PROP_LOCATION,
          TableCatalog.PROP_COMMENT,
          TableCatalog.PROP_EXTERNAL,
          TableCatalog.PROP_IS_MANAGED_LOCATION);

  /** Options fixed at creation: changing them would make the stored files unreadable or wrong. */
  private static final Set<String> IMMUTABLE =
      Set.of(CoreOptions.BUCKET, PRIMARY_KEY, CoreOptions.MERGE_ENGINE);

  private String name;
  private String warehouse;
  private Map<String, String> options;
  private FileIO fileIO;
  private FileSystemCatalog catalog;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap sparkOptions) {
    this.name = name;
    Map<String, String> opts = new LinkedHashMap<>();
    // CaseInsensitiveStringMap lower-cases keys; the engine's keys are lower case already.
    sparkOptions.asCaseSensitiveMap().forEach(opts::put);
    String wh = opts.remove(WAREHOUSE);
    if (wh == null || wh.isBlank()) {
      throw new IllegalArgumentException(
          "Spark catalog '"
              + name
              + "' needs a warehouse: set"
              + " spark.sql.catalog."
              + name
              + ".warehouse=<path or URI of the Lockstep warehouse>");
    }
    this.warehouse = wh;
    this.options = Map.copyOf(opts);
    this.fileIO = TableLoader.openFileIO(warehouse, options);
    this.catalog = TableLoader.openCatalog(fileIO, warehouse, options);
  }

  @Override
  public String name() {
    return name;
  }

  String warehouse() {
    return warehouse;
  }

  Map<String, String> catalogOptions() {
    return options;
  }

  FileSystemCatalog engineCatalog() {
    return catalog;
  }

  TableLoader loader(dev.lockstep.engine.catalog.Identifier id) {
    return new TableLoader(warehouse, options, id);
  }

  // ---------------------------------------------------------------- namespaces

  @Override
  public String[] defaultNamespace() {
    return new String[] {"default"};
  }

  private Path databasePath(String db) {
    return Path.of(warehouse).child(db + ".db");
  }

  private static String database(String[] namespace) {
    if (namespace.length != 1) {
      throw new IllegalArgumentException(
          "Lockstep namespaces are one level deep (a database),"
              + " got "
              + String.join(".", namespace));
    }
    return namespace[0];
  }

  @Override
  public String[][] listNamespaces() {
    List<String[]> result = new ArrayList<>();
    try {
      if (!fileIO.exists(Path.of(warehouse))) {
        return new String[0][];
      }
      for (FileStatus s : fileIO.list(Path.of(warehouse))) {
        String n = s.path().name();
        if (s.directory() && n.endsWith(".db")) {
          result.add(new String[] {n.substring(0, n.length() - 3)});
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    result.sort((a, b) -> a[0].compareTo(b[0]));
    return result.toArray(new String[0][]);
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    if (namespace.length == 0) {
      return listNamespaces();
    }
    if (!namespaceExists(namespace)) {
      throw new NoSuchNamespaceException(namespace);
    }
    return new String[0][];
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    if (namespace.length != 1) {
      return false;
    }
    try {
      return fileIO.exists(databasePath(namespace[0]));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace)
      throws NoSuchNamespaceException {
    if (!namespaceExists(namespace)) {
      throw new NoSuchNamespaceException(namespace);
    }
    return Map.of(SupportsNamespaces.PROP_LOCATION, databasePath(namespace[0]).toString());
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    String db = database(namespace);
    if (namespaceExists(namespace)) {
      throw new NamespaceAlreadyExistsException(namespace);
    }
    try {
      fileIO.mkdirs(databasePath(db));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) {
    throw new UnsupportedOperationException("Lockstep databases have no properties to alter");
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    String db = database(namespace);
    if (!namespaceExists(namespace)) {
      throw new NoSuchNamespaceException(namespace);
    }
    try {
      List<String> tables = catalog.listTables(db);
      if (!tables.isEmpty() && !cascade) {
        throw new NonEmptyNamespaceException(namespace);
      }
      for (String t : tables) {
        catalog.dropTable(new dev.lockstep.engine.catalog.Identifier(db, t));
      }
      return fileIO.delete(databasePath(db), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---------------------------------------------------------------- tables

  static dev.lockstep.engine.catalog.Identifier toEngine(Identifier ident) {
    if (ident.namespace().length != 1) {
      throw new IllegalArgumentException(
          "A Lockstep table is named <database>.<table>, got " + ident);
    }
    return new dev.lockstep.engine.catalog.Identifier(ident.namespace()[0], ident.name());
  }

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    String db = database(namespace);
    if (!namespaceExists(namespace)) {
      throw new NoSuchNamespaceException(namespace);
    }
    try {
      return catalog.listTables(db).stream()
          .map(t -> Identifier.of(namespace, t))
          .toArray(Identifier[]::new);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    if (ident.namespace().length != 1) {
      throw new NoSuchTableException(ident);
    }
    dev.lockstep.engine.catalog.Identifier id = toEngine(ident);
    try {
      TableSchema schema =
          new SchemaManager(fileIO, catalog.tablePath(id))
              .latest()
              .orElseThrow(() -> new NoSuchTableException(ident));
      return new LockstepSparkTable(this, id, schema, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code SELECT ... FROM t VERSION AS OF <snapshot id>}: time travel to a snapshot. */
  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    long snapshot;
    try {
      snapshot = Long.parseLong(version.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "VERSION AS OF '"
              + version
              + "': a Lockstep version is"
              + " a snapshot id; a tag's snapshot is restored by CALL sys.rollback(table => ...,"
              + " version => '"
              + version
              + "') or read with 'lockstep table read --tag', not by"
              + " VERSION AS OF");
    }
    LockstepSparkTable latest = (LockstepSparkTable) loadTable(ident);
    return new LockstepSparkTable(this, latest.identifier(), latest.tableSchema(), snapshot);
  }

  /** Opens the engine table on the driver; the caller closes it. */
  FileStoreTable openTable(dev.lockstep.engine.catalog.Identifier id) throws IOException {
    return catalog.getTable(id);
  }

  @Override
  public Table createTable(
      Identifier ident,
      StructType sparkSchema,
      Transform[] partitions,
      Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    dev.lockstep.engine.catalog.Identifier id = toEngine(ident);
    if (!namespaceExists(ident.namespace())) {
      throw new NoSuchNamespaceException(ident.namespace());
    }
    Schema.Builder builder = Schema.newBuilder();
    for (StructField f : sparkSchema.fields()) {
      builder.column(
          f.name(), SparkTypes.toLockstep(f.name(), f.dataType(), f.nullable(), f.metadata()));
    }
    List<String> partitionKeys = new ArrayList<>();
    for (Transform t : partitions) {
      if (!(t instanceof IdentityTransform identity)) {
        throw new IllegalArgumentException(
            "Lockstep tables are partitioned by columns only;"
                + " PARTITIONED BY "
                + t.describe()
                + " is not supported: partition by a column"
                + " holding the value instead");
      }
      partitionKeys.add(String.join(".", identity.reference().fieldNames()));
    }
    builder.partitionKeys(partitionKeys.toArray(new String[0]));
    Map<String, String> tableOptions = new HashMap<>();
    for (Map.Entry<String, String> e : properties.entrySet()) {
      String key = e.getKey();
      if (key.equals(PRIMARY_KEY)) {
        String[] keys =
            Arrays.stream(e.getValue().split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toArray(String[]::new);
        builder.primaryKey(keys);
      } else if (key.startsWith(TableCatalog.OPTION_PREFIX)) {
        tableOptions.put(key.substring(TableCatalog.OPTION_PREFIX.length()), e.getValue());
      } else if (!SPARK_RESERVED.contains(key)) {
        tableOptions.put(key, e.getValue());
      }
    }
    if (properties.containsKey(TableCatalog.PROP_LOCATION)) {
      throw new IllegalArgumentException(
          "Lockstep tables live in the warehouse"
              + " (<warehouse>/<database>.db/<table>); drop the LOCATION clause");
    }
    builder.options(tableOptions);
    try {
      FileStoreTable created = catalog.createTable(id, builder.build());
      created.close();
    } catch (TableExistsException e) {
      throw new TableAlreadyExistsException(ident);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return loadTable(ident);
    } catch (NoSuchTableException e) {
      throw new IllegalStateException("Table " + ident + " vanished right after its creation", e);
    }
  }

  /**
   * Only {@code SET TBLPROPERTIES} and {@code UNSET TBLPROPERTIES}: a new schema version with the
   * changed options. The bucket count, primary key and merge engine are fixed at creation.
   */
  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    dev.lockstep.engine.catalog.Identifier id = toEngine(ident);
    SchemaManager schemas = new SchemaManager(fileIO, catalog.tablePath(id));
    try {
      TableSchema latest = schemas.latest().orElseThrow(() -> new NoSuchTableException(ident));
      Map<String, String> newOptions = new HashMap<>(latest.options());
      for (TableChange change : changes) {
        if (change instanceof TableChange.SetProperty set) {
          requireMutable(set.property());
          if (!SPARK_RESERVED.contains(set.property())) {
            newOptions.put(set.property(), set.value());
          }
        } else if (change instanceof TableChange.RemoveProperty remove) {
          requireMutable(remove.property());
          newOptions.remove(remove.property());
        } else {
          throw new UnsupportedOperationException(
              "Lockstep tables have no schema evolution yet;"
                  + " only ALTER TABLE ... SET/UNSET TBLPROPERTIES is supported, not "
                  + change.getClass().getSimpleName());
        }
      }
      Map<String, String> merged = new HashMap<>(options);
      merged.putAll(newOptions);
      CoreOptions.from(merged);
      dev.lockstep.engine.maintenance.MaintenanceOptions.from(merged);
      schemas.create(
          new TableSchema(
              latest.id() + 1,
              latest.fields(),
              latest.partitionKeys(),
              latest.primaryKeys(),
              newOptions,
              System.currentTimeMillis()));
    } catch (java.nio.file.FileAlreadyExistsException e) {
      throw new IllegalStateException(
          "Table " + ident + " was altered concurrently; run the" + " ALTER TABLE again", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return loadTable(ident);
  }

  private static void requireMutable(String key) {
    if (IMMUTABLE.contains(key)) {
      throw new IllegalArgumentException(
          "'"
              + key
              + "' of a Lockstep table is fixed when the"
              + " table is created; create a new table and INSERT INTO it to change it");
    }
  }

  @Override
  public boolean dropTable(Identifier ident) {
    if (ident.namespace().length != 1) {
      return false;
    }
    try {
      catalog.dropTable(toEngine(ident));
      return true;
    } catch (TableNotFoundException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent) {
    throw new UnsupportedOperationException(
        "Lockstep tables cannot be renamed yet: their path is"
            + " their name; create the new table and INSERT INTO it");
  }
}
