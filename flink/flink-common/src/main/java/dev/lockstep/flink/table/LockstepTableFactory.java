package dev.lockstep.flink.table;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.catalog.TableExistsException;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.flink.LockstepFlinkOptions;
import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.TableShape;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.util.TimeUtils;

/**
 * {@code 'connector' = 'lockstep'}: tables of a Lockstep catalog, and tables declared in another
 * catalog with {@code 'warehouse' = '...'} (the Lockstep table {@code database.table}, by default
 * the Flink table's own names, is created from the DDL when it does not exist yet). Every option
 * other than the connector's own reaches the engine as a table option override.
 */
public final class LockstepTableFactory
    implements DynamicTableSourceFactory, DynamicTableSinkFactory {

  /** Keys that belong to Flink or this factory, never to the engine table. */
  static final Set<String> CONNECTOR_KEYS =
      Set.of(
          FactoryUtil.CONNECTOR.key(),
          LockstepFlinkOptions.WAREHOUSE,
          LockstepFlinkOptions.DATABASE,
          LockstepFlinkOptions.TABLE,
          LockstepFlinkOptions.SINK_PARALLELISM,
          LockstepFlinkOptions.DISCOVERY_INTERVAL,
          LockstepFlinkOptions.COMMIT_USER);

  /** Set when the factory serves a Lockstep catalog's tables. */
  private final String catalogWarehouse;

  private final Map<String, String> catalogOptions;

  /** The factory found through {@code META-INF/services} ({@code 'connector' = 'lockstep'}). */
  public LockstepTableFactory() {
    this(null, Map.of());
  }

  LockstepTableFactory(String catalogWarehouse, Map<String, String> catalogOptions) {
    this.catalogWarehouse = catalogWarehouse;
    this.catalogOptions = Map.copyOf(catalogOptions);
  }

  @Override
  public String factoryIdentifier() {
    return LockstepFlinkOptions.IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of();
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of();
  }

  /** The table, its shape and the options of one planning of it. */
  private record Resolved(TableLoader loader, TableShape shape, Map<String, String> options) {}

  private Resolved resolve(ObjectIdentifier objectId, ResolvedCatalogTable table) {
    Map<String, String> options = new HashMap<>(table.getOptions());
    String warehouse =
        catalogWarehouse != null ? catalogWarehouse : options.get(LockstepFlinkOptions.WAREHOUSE);
    if (warehouse == null) {
      throw new org.apache.flink.table.api.ValidationException(
          "Table "
              + objectId
              + " with 'connector' = 'lockstep' needs 'warehouse' = '<directory>' (or create it in a"
              + " catalog of 'type' = 'lockstep').");
    }
    Identifier id =
        new Identifier(
            options.getOrDefault(LockstepFlinkOptions.DATABASE, objectId.getDatabaseName()),
            options.getOrDefault(LockstepFlinkOptions.TABLE, objectId.getObjectName()));
    Map<String, String> tableOptions = new HashMap<>(catalogOptions);
    options.forEach(
        (k, v) -> {
          if (!CONNECTOR_KEYS.contains(k)) {
            tableOptions.put(k, v);
          }
        });
    if (catalogWarehouse == null) {
      createIfAbsent(warehouse, id, table, tableOptions);
    }
    TableLoader loader = new TableLoader(warehouse, tableOptions, id);
    try (TableLoader.Opened opened = loader.open()) {
      TableShape shape =
          new TableShape(opened.table().schema(), opened.table().options().bucket())
              .withFlinkRowType(
                  (org.apache.flink.table.types.logical.RowType)
                      table.getResolvedSchema().toPhysicalRowDataType().getLogicalType());
      return new Resolved(loader, shape, options);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open " + loader + ": " + e.getMessage(), e);
    }
  }

  private static void createIfAbsent(
      String warehouse,
      Identifier id,
      ResolvedCatalogTable table,
      Map<String, String> tableOptions) {
    try (FileIO io = FileIODiscovery.open(Path.of(warehouse), tableOptions)) {
      FileSystemCatalog catalog = new FileSystemCatalog(io, Path.of(warehouse), tableOptions);
      if (!catalog.tableExists(id)) {
        try {
          catalog.createTable(id, FlinkTypes.toEngine(table, tableOptions)).close();
        } catch (TableExistsException raced) {
          // another job created it first: use theirs
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot create " + id + " in " + warehouse + ": " + e.getMessage(), e);
    }
  }

  @Override
  public DynamicTableSink createDynamicTableSink(Context context) {
    Resolved r = resolve(context.getObjectIdentifier(), context.getCatalogTable());
    String parallelism = r.options().get(LockstepFlinkOptions.SINK_PARALLELISM);
    return new LockstepDynamicTableSink(
        r.loader(),
        r.shape(),
        r.options().get(LockstepFlinkOptions.COMMIT_USER),
        parallelism == null ? null : Integer.valueOf(parallelism));
  }

  @Override
  public DynamicTableSource createDynamicTableSource(Context context) {
    Resolved r = resolve(context.getObjectIdentifier(), context.getCatalogTable());
    if (context.getConfiguration().get(ExecutionOptions.RUNTIME_MODE)
        == RuntimeExecutionMode.STREAMING) {
      String interval = r.options().get(LockstepFlinkOptions.DISCOVERY_INTERVAL);
      return new LockstepStreamTableSource(
          r.loader(),
          r.shape(),
          changelogMode(r.loader()),
          interval == null
              ? LockstepFlinkOptions.DISCOVERY_INTERVAL_DEFAULT
              : TimeUtils.parseDuration(interval));
    }
    String snapshot = r.options().get(LockstepFlinkOptions.SCAN_SNAPSHOT_ID);
    return new LockstepDynamicTableSource(
        r.loader(), r.shape(), snapshot == null ? null : Long.valueOf(snapshot));
  }

  /**
   * What a streaming read produces: an append table inserts; a primary-key table with {@code
   * changelog-producer = none} upserts (the engine emits each snapshot's winning row per key, not
   * what it replaced; the planner normalizes), with {@code input} or {@code lookup} every kind.
   */
  private static ChangelogMode changelogMode(TableLoader loader) {
    try (TableLoader.Opened opened = loader.open()) {
      if (!opened.table().primaryKeyTable()) {
        return ChangelogMode.insertOnly();
      }
      return opened.table().changelogOptions().producer() == ChangelogOptions.Producer.NONE
          ? ChangelogMode.upsert()
          : ChangelogMode.all();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open " + loader + ": " + e.getMessage(), e);
    }
  }
}
