package dev.lockstep.commit;

import dev.lockstep.lock.LockOptions;
import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.Options;
import java.time.Duration;
import java.util.Map;

/**
 * Options of the snapshot commit protocol, parsed once.
 *
 * @param strategy {@value #COMMIT_STRATEGY}
 * @param lock the generic lock options
 * @param writeAttempts {@value #COMMIT_WRITE_ATTEMPTS}: how often one snapshot write that failed
 *     before landing is tried (each failure is read back first, so a retry never commits twice)
 * @param leaseMargin {@value #COMMIT_LEASE_MARGIN}: under a lock, the lease time that must be left
 *     when a write starts; the write is bounded by the time left minus this margin
 * @param fencingScope {@value #COMMIT_FENCING_SCOPE}: the name under which the {@code lock}
 *     strategy records and compares fencing tokens ({@link FencingToken#lock()} is {@code
 *     <scope>:<lock key>}); defaults to {@code lock.type} ({@value #COMMIT_FENCING_SCOPE_FALLBACK}
 *     when none is set)
 * @param atomicCreateProbe {@value #COMMIT_ATOMIC_CREATE_PROBE}: whether a lock-free {@code
 *     atomic-create} committer races the store's atomic create once per endpoint before its first
 *     commit, and refuses a store that lets two creates win ({@link AtomicCreateProbe})
 * @param warehouse {@value #WAREHOUSE}: the catalog's warehouse, where that probe runs and records
 *     its verdict; {@code null}: the parent of the snapshot directory
 */
public record CommitOptions(
    CommitStrategy strategy,
    LockOptions lock,
    int writeAttempts,
    Duration leaseMargin,
    String fencingScope,
    boolean atomicCreateProbe,
    String warehouse) {

  public static final String COMMIT_STRATEGY = "commit.strategy";
  public static final CommitStrategy COMMIT_STRATEGY_DEFAULT = CommitStrategy.AUTO;
  public static final String COMMIT_WRITE_ATTEMPTS = "commit.write-attempts";
  public static final int COMMIT_WRITE_ATTEMPTS_DEFAULT = 3;
  public static final String COMMIT_LEASE_MARGIN = "commit.lease-margin";
  public static final Duration COMMIT_LEASE_MARGIN_DEFAULT = Duration.ofSeconds(1);

  /**
   * Tokens are compared only within one scope. Set a new value when the table's lock service is
   * replaced by one whose tokens may start lower (a new ZooKeeper ensemble, a new metastore
   * database): otherwise every locked commit is refused as fenced by the old service's tokens.
   */
  public static final String COMMIT_FENCING_SCOPE = "commit.fencing-scope";

  public static final String COMMIT_FENCING_SCOPE_FALLBACK = "lock";

  /**
   * Turning it off trusts the store's atomic create unchecked: a store that implements it as
   * check-then-put then loses commits. Only for a store that has passed {@code lockstep
   * conformance}.
   */
  public static final String COMMIT_ATOMIC_CREATE_PROBE = "commit.atomic-create-probe";

  public static final boolean COMMIT_ATOMIC_CREATE_PROBE_DEFAULT = true;

  /** Paimon's catalog option; here only where the atomic-create probe runs and records. */
  public static final String WAREHOUSE = "warehouse";

  /** Options without the probe's settings (probe on, rooted beside the snapshot directory). */
  public CommitOptions(
      CommitStrategy strategy,
      LockOptions lock,
      int writeAttempts,
      Duration leaseMargin,
      String fencingScope) {
    this(
        strategy,
        lock,
        writeAttempts,
        leaseMargin,
        fencingScope,
        COMMIT_ATOMIC_CREATE_PROBE_DEFAULT,
        null);
  }

  public static final ConfigOption<CommitStrategy> COMMIT_STRATEGY_OPTION =
      ConfigOption.key(COMMIT_STRATEGY)
          .enumType(CommitStrategy.class)
          .defaultValue(COMMIT_STRATEGY_DEFAULT)
          .withDescription("`auto`, `atomic-create`, `rename`, `lock`");
  public static final ConfigOption<Integer> COMMIT_WRITE_ATTEMPTS_OPTION =
      ConfigOption.key(COMMIT_WRITE_ATTEMPTS)
          .intType()
          .defaultValue(COMMIT_WRITE_ATTEMPTS_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription("tries of one snapshot write that failed before landing");
  public static final ConfigOption<Duration> COMMIT_LEASE_MARGIN_OPTION =
      ConfigOption.key(COMMIT_LEASE_MARGIN)
          .durationType()
          .defaultValue(COMMIT_LEASE_MARGIN_DEFAULT)
          .require(Requirement.notNegative())
          .withDescription(
              "lease time that must be left when a locked write starts (lowering it"
                  + " widens the late-write window)");
  public static final ConfigOption<String> COMMIT_FENCING_SCOPE_OPTION =
      ConfigOption.key(COMMIT_FENCING_SCOPE)
          .stringType()
          .noDefaultValue()
          .withDefaultText("the value of `lock.type` (`lock` when unset)")
          .withDescription(
              "name under which fencing tokens are recorded and compared; set a new one"
                  + " when the lock service is replaced by one whose tokens may start lower");
  public static final ConfigOption<Boolean> COMMIT_ATOMIC_CREATE_PROBE_OPTION =
      ConfigOption.key(COMMIT_ATOMIC_CREATE_PROBE)
          .booleanType()
          .defaultValue(COMMIT_ATOMIC_CREATE_PROBE_DEFAULT)
          .withDescription(
              "race the store's atomic create once per endpoint before the first"
                  + " lock-free commit and refuse a store that lets two creates win. **Turning it off can"
                  + " lose commits** on a store whose create is check-then-put; only for a store that"
                  + " passed `lockstep conformance`");

  public CommitOptions {
    COMMIT_WRITE_ATTEMPTS_OPTION.check(writeAttempts);
    COMMIT_LEASE_MARGIN_OPTION.check(leaseMargin);
    if (fencingScope == null || fencingScope.isBlank()) {
      fencingScope = lock.type() == null ? COMMIT_FENCING_SCOPE_FALLBACK : lock.type();
    }
    fencingScope = fencingScope.trim();
    if (warehouse != null && warehouse.isBlank()) {
      warehouse = null;
    }
  }

  public static CommitOptions from(Map<String, String> options) {
    Options o = Options.of(options);
    return new CommitOptions(
        o.get(COMMIT_STRATEGY_OPTION),
        LockOptions.from(o),
        o.get(COMMIT_WRITE_ATTEMPTS_OPTION),
        o.get(COMMIT_LEASE_MARGIN_OPTION),
        o.get(COMMIT_FENCING_SCOPE_OPTION),
        o.get(COMMIT_ATOMIC_CREATE_PROBE_OPTION),
        o.get(WAREHOUSE));
  }
}
