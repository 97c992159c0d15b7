package dev.lockstep.engine.store;

import dev.lockstep.options.ConfigOption;
import java.util.List;
import java.util.Map;

/**
 * The deletion-vector option of primary-key tables (docs/engine.md, "Deletion vectors"); the key
 * follows Apache Paimon.
 */
public final class DeletionVectorOptions {

  private DeletionVectorOptions() {}

  public static final ConfigOption<Boolean> ENABLED =
      ConfigOption.key("deletion-vectors.enabled")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "primary-key tables: every commit marks the rows it supersedes (in the bucket files"
                  + " it touches) in deletion vectors, so that reads read each file on its own,"
                  + " without merging keys across files");

  /** In the order of the README table. */
  public static final List<ConfigOption<?>> OPTIONS = List.of(ENABLED);

  /** Whether {@code table} keeps deletion vectors: the option is on and it has a primary key. */
  public static boolean enabled(TableStore table) {
    return table.primaryKeyTable() && enabled(table.options().all().asMap());
  }

  /** The option's value in {@code options}; @throws IllegalArgumentException on a bad value */
  public static boolean enabled(Map<String, String> options) {
    Boolean value = ENABLED.read(options);
    return value != null && value;
  }
}
