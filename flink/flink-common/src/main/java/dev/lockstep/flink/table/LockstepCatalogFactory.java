package dev.lockstep.flink.table;

import dev.lockstep.flink.LockstepFlinkOptions;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * {@code 'type' = 'lockstep'}. Required: {@code warehouse}. Every other option (store, lock, commit
 * strategy, table defaults) passes through to the engine; {@code default-database} (default {@code
 * default}) is created when missing.
 */
public final class LockstepCatalogFactory implements CatalogFactory {

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

  @Override
  public Catalog createCatalog(Context context) {
    Map<String, String> options = new HashMap<>(context.getOptions());
    options.remove(CommonCatalogKeys.TYPE);
    options.remove(FactoryUtil.PROPERTY_VERSION.key());
    String warehouse = options.remove(LockstepFlinkOptions.WAREHOUSE);
    if (warehouse == null || warehouse.isBlank()) {
      throw new ValidationException(
          "Catalog "
              + context.getName()
              + " of 'type' = 'lockstep'"
              + " needs 'warehouse' = '<directory>', e.g. 'file:///data/warehouse' or"
              + " 's3://bucket/warehouse'.");
    }
    String database =
        options.getOrDefault(
            LockstepFlinkOptions.DEFAULT_DATABASE, LockstepFlinkOptions.DEFAULT_DATABASE_DEFAULT);
    options.remove(LockstepFlinkOptions.DEFAULT_DATABASE);
    return new LockstepCatalog(context.getName(), database, warehouse, options);
  }

  /** Keys Flink itself puts into a catalog's options. */
  private static final class CommonCatalogKeys {
    static final String TYPE = "type";
  }
}
