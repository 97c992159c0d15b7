package dev.lockstep.commit;

import dev.lockstep.lock.LockOptions;
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
 * @param leaseMargin {@value #COMMIT_LEASE_MARGIN}: under a lock, the lease time that must be left when
 *     a write starts; the write is bounded by the time left minus this margin
 * @param fencingScope {@value #COMMIT_FENCING_SCOPE}: the name under which the {@code lock} strategy
 *     records and compares fencing tokens ({@link FencingToken#lock()} is {@code <scope>:<lock key>});
 *     defaults to {@code lock.type} ({@value #COMMIT_FENCING_SCOPE_FALLBACK} when none is set)
 * @param atomicCreateProbe {@value #COMMIT_ATOMIC_CREATE_PROBE}: whether a lock-free {@code
 *     atomic-create} committer races the store's atomic create once per endpoint before its first
 *     commit, and refuses a store that lets two creates win ({@link AtomicCreateProbe})
 * @param warehouse {@value #WAREHOUSE}: the catalog's warehouse, where that probe runs and records
 *     its verdict; {@code null}: the parent of the snapshot directory
 */
public record CommitOptions(CommitStrategy strategy, LockOptions lock, int writeAttempts,
    Duration leaseMargin, String fencingScope, boolean atomicCreateProbe, String warehouse) {

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
  public CommitOptions(CommitStrategy strategy, LockOptions lock, int writeAttempts,
      Duration leaseMargin, String fencingScope) {
    this(strategy, lock, writeAttempts, leaseMargin, fencingScope,
        COMMIT_ATOMIC_CREATE_PROBE_DEFAULT, null);
  }

  public CommitOptions {
    if (writeAttempts < 1) {
      throw new IllegalArgumentException(
          "Option '" + COMMIT_WRITE_ATTEMPTS + "' must be at least 1: " + writeAttempts);
    }
    if (leaseMargin.isNegative()) {
      throw new IllegalArgumentException(
          "Option '" + COMMIT_LEASE_MARGIN + "' must not be negative: " + leaseMargin);
    }
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
    String strategy = o.get(COMMIT_STRATEGY);
    return new CommitOptions(
        strategy == null ? COMMIT_STRATEGY_DEFAULT : CommitStrategy.parse(strategy),
        LockOptions.from(o),
        o.getInt(COMMIT_WRITE_ATTEMPTS, COMMIT_WRITE_ATTEMPTS_DEFAULT),
        o.getDuration(COMMIT_LEASE_MARGIN, COMMIT_LEASE_MARGIN_DEFAULT),
        o.get(COMMIT_FENCING_SCOPE),
        o.getBoolean(COMMIT_ATOMIC_CREATE_PROBE, COMMIT_ATOMIC_CREATE_PROBE_DEFAULT),
        o.get(WAREHOUSE));
  }
}
