package dev.lockstep.engine.table;

import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.DeletionVectorOptions;
import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.OptionSet;
import dev.lockstep.options.OptionsProvider;

/**
 * The options the engine reads: {@link CoreOptions} and {@link MaintenanceOptions}, plus the
 * catalog's {@code warehouse}. Registered as an {@link OptionsProvider} service, so the
 * catalog-level check ({@code dev.lockstep.catalog.CatalogOptions}) of the command line and of
 * {@code FileSystemCatalog} knows them. The keys are Paimon's and own no namespace.
 */
public final class EngineOptions implements OptionsProvider {

  /** The catalog's root; engines and the command line pass it with the catalog options. */
  public static final ConfigOption<String> WAREHOUSE =
      ConfigOption.key("warehouse")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "the warehouse root (`<warehouse>/<database>.db/<table>/`); engines and the"
                  + " command line pass it with the catalog options");

  /** The declaration; also the engine README's table. */
  public static final OptionSet OPTIONS =
      OptionSet.of("the table engine", "engine/README.md")
          .option(CoreOptions.OPTIONS.toArray(ConfigOption<?>[]::new))
          .option(MaintenanceOptions.OPTIONS.toArray(ConfigOption<?>[]::new))
          .option(ChangelogOptions.OPTIONS.toArray(ConfigOption<?>[]::new))
          .option(DeletionVectorOptions.OPTIONS.toArray(ConfigOption<?>[]::new))
          .option(WAREHOUSE)
          // fields.<column>.stats-mode: checked against the table's columns by CoreOptions.
          .passThrough(CoreOptions.FIELDS_PREFIX)
          .build();

  @Override
  public OptionSet options() {
    return OPTIONS;
  }
}
