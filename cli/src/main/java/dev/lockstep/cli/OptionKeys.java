package dev.lockstep.cli;

import dev.lockstep.catalog.CatalogOptions;
import dev.lockstep.engine.maintenance.MaintenanceOptions;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.DeletionVectorOptions;
import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.OptionCatalog;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The command line's view of the declared options, so that a misspelt key is refused with the
 * nearest known key instead of being silently ignored (which, for {@code lock.enabled}, would
 * commit without the lock the user asked for).
 *
 * <p>Every store loader, lock factory and {@code OptionsProvider} on the class path declares its
 * options ({@link CatalogOptions}, through {@code ServiceLoader}); the check and its message are
 * lock-api's, so the command line refuses a key exactly as an embedded engine or a factory created
 * from Java does. Keys under a declared pass-through prefix ({@code hadoop.}, {@code hive.}, {@code
 * metastore.}, {@code lock.jdbc.property.}, {@code fs.scheme-alias.}) go unchecked to a third-party
 * configuration.
 */
final class OptionKeys {

  private static final OptionCatalog CATALOG =
      CatalogOptions.onClassPath(OptionKeys.class.getClassLoader());

  private static final Set<String> TABLE_KEYS = tableKeys();

  private OptionKeys() {}

  private static Set<String> tableKeys() {
    Set<String> keys = new TreeSet<>();
    for (ConfigOption<?> option : CoreOptions.OPTIONS) {
      keys.addAll(option.keys());
    }
    for (ConfigOption<?> option : MaintenanceOptions.OPTIONS) {
      keys.addAll(option.keys());
    }
    // The changelog producer and retention, not a reader's own position (scan.*, consumer-id).
    for (ConfigOption<?> option : ChangelogOptions.OPTIONS) {
      if (!option.key().startsWith("scan.") && !option.key().equals("consumer-id")) {
        keys.addAll(option.keys());
      }
    }
    for (ConfigOption<?> option : DeletionVectorOptions.OPTIONS) {
      keys.addAll(option.keys());
    }
    return keys;
  }

  /** Whether {@code key} is stored with a table at create (engine and expiration options). */
  static boolean isTableOption(String key) {
    return TABLE_KEYS.contains(key);
  }

  /**
   * Checks every key of {@code options}.
   *
   * @throws dev.lockstep.options.UnknownOptionException naming the first unknown key and the
   *     nearest known one (printed as one line, exit code 2)
   */
  static void validate(Map<String, String> options) {
    CATALOG.check(options);
  }
}
