package dev.lockstep.catalog;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.options.OptionSet;
import dev.lockstep.options.OptionsProvider;

/**
 * The options lock-api itself reads: the generic lock options, the commit protocol's, and the
 * scheme aliases of {@link FileIODiscovery}. They own no namespace: {@code commit.*} keys are
 * shared with the engine, so only the catalog-level check ({@link CatalogOptions}) refuses unknown
 * ones.
 */
public final class LockApiOptions implements OptionsProvider {

  /** The declaration; also the lock-api README's table. */
  public static final OptionSet OPTIONS =
      OptionSet.of("the commit protocol (lock-api)", "lock-api/README.md")
          .option(
              LockOptions.LOCK_ENABLED_OPTION,
              LockOptions.LOCK_TYPE_OPTION,
              LockOptions.LOCK_ACQUIRE_TIMEOUT_OPTION,
              LockOptions.LOCK_CHECK_MAX_SLEEP_OPTION,
              CommitOptions.COMMIT_STRATEGY_OPTION,
              CommitOptions.COMMIT_WRITE_ATTEMPTS_OPTION,
              CommitOptions.COMMIT_LEASE_MARGIN_OPTION,
              CommitOptions.COMMIT_FENCING_SCOPE_OPTION,
              CommitOptions.COMMIT_ATOMIC_CREATE_PROBE_OPTION)
          .passThrough(FileIODiscovery.SCHEME_ALIAS_PREFIX)
          .build();

  @Override
  public OptionSet options() {
    return OPTIONS;
  }
}
