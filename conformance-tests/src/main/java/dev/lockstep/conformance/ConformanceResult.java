package dev.lockstep.conformance;

import dev.lockstep.conformance.CheckResult.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The outcome of one conformance run: every check, the capability matrix (declared vs observed),
 * the commit strategies that are safe on this backend, and the latencies measured while it ran.
 *
 * <p>The run passes when at least one check ran, no check failed, and every capability was
 * declared. A skipped check is not a failure: it is what a capability declared absent produces.
 */
public final class ConformanceResult {

  /** What the run observed for one capability. */
  public enum Observed {
    /** Declared present and every check of it passed. */
    HOLDS,
    /** Declared absent, and using it fails cleanly. */
    ABSENT,
    /** A check of it failed: declared present but broken, or the declaration is wrong. */
    BROKEN,
    /** Not declared: the suite fails. */
    UNDECLARED,
    /** Declared, but no check of it was part of this run. */
    NOT_CHECKED
  }

  /**
   * One row of the capability matrix.
   *
   * @param declared the declaration, empty when undeclared
   * @param passed checks of it that passed
   * @param failed checks of it that failed
   * @param skipped checks of it that were skipped
   */
  public record CapabilityRow(
      Capability capability,
      Optional<Boolean> declared,
      Observed observed,
      int passed,
      int failed,
      int skipped) {}

  /**
   * Whether a commit strategy is safe on this backend.
   *
   * @param strategy as named in reports, for example {@code atomic-create}
   * @param safe every check the strategy rests on passed
   * @param why the checks it rests on, or why it is not safe
   */
  public record StrategyVerdict(String strategy, boolean safe, String why) {}

  private static final Map<Capability, String> CONTRACT_OF =
      Map.of(
          Capability.STORE_BASICS, "StoreContract",
          Capability.ATOMIC_CREATE, "AtomicCreateContract",
          Capability.ATOMIC_RENAME, "AtomicRenameContract",
          Capability.LOCK, "LockContract");

  private final String targetDescription;
  private final String settings;
  private final List<String> warnings;
  private final Map<Capability, Boolean> declarations;
  private final List<CheckResult> checks;
  private final Map<String, Latencies.Percentiles> latencies;
  private final Instant started;
  private final Duration duration;

  ConformanceResult(
      String targetDescription,
      String settings,
      List<String> warnings,
      Map<Capability, Boolean> declarations,
      List<CheckResult> checks,
      Map<String, Latencies.Percentiles> latencies,
      Instant started,
      Duration duration) {
    this.targetDescription = targetDescription;
    this.settings = settings;
    this.warnings = List.copyOf(warnings);
    this.declarations = Collections.unmodifiableMap(new LinkedHashMap<>(declarations));
    this.checks = List.copyOf(checks);
    this.latencies = Collections.unmodifiableMap(new LinkedHashMap<>(latencies));
    this.started = started;
    this.duration = duration;
  }

  /** The target, secrets masked. */
  public String targetDescription() {
    return targetDescription;
  }

  /** The kit's settings of the run (rounds, contenders, fault rate, ...). */
  public String settings() {
    return settings;
  }

  /**
   * Why this run is not a publishable verdict even if it passed (settings reduced below what a
   * verdict needs, see {@link ConformanceSettings#reductions()}); empty for a full run. Every
   * report shows them next to the verdict.
   */
  public List<String> warnings() {
    return warnings;
  }

  /** Every declaration made. */
  public Map<Capability, Boolean> declarations() {
    return declarations;
  }

  /** Every check, in run order. */
  public List<CheckResult> checks() {
    return checks;
  }

  /** The check named {@code contract.check}, if it ran. */
  public Optional<CheckResult> check(String name) {
    return checks.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /** Latency percentiles per operation, measured during the run. */
  public Map<String, Latencies.Percentiles> latencies() {
    return latencies;
  }

  public Instant started() {
    return started;
  }

  public Duration duration() {
    return duration;
  }

  public long count(Status status) {
    return checks.stream().filter(c -> c.status() == status).count();
  }

  /** The capabilities not declared at all. */
  public List<Capability> undeclared() {
    List<Capability> out = new ArrayList<>();
    for (Capability c : Capability.values()) {
      if (!declarations.containsKey(c)) {
        out.add(c);
      }
    }
    return out;
  }

  /** Whether the backend conforms: checks ran, none failed, every capability declared. */
  public boolean passed() {
    return !checks.isEmpty() && count(Status.FAILED) == 0 && undeclared().isEmpty();
  }

  /** Why the run did not pass, or {@code "passed"}. */
  public String verdict() {
    if (checks.isEmpty()) {
      return "FAILED: no check ran (an empty run proves nothing)";
    }
    if (!undeclared().isEmpty()) {
      return "FAILED: capabilities not declared: " + undeclared();
    }
    long failed = count(Status.FAILED);
    return failed == 0 ? "PASSED" : "FAILED: " + failed + " of " + checks.size() + " checks failed";
  }

  /** The capability matrix: declared vs observed. */
  public List<CapabilityRow> capabilityMatrix() {
    List<CapabilityRow> rows = new ArrayList<>();
    for (Capability capability : Capability.values()) {
      String contract = CONTRACT_OF.get(capability);
      int passed = 0;
      int failed = 0;
      int skipped = 0;
      for (CheckResult c : checks) {
        if (c.contract().equals(contract)) {
          switch (c.status()) {
            case PASSED -> passed++;
            case FAILED -> failed++;
            default -> skipped++;
          }
        }
      }
      Optional<Boolean> declared = Optional.ofNullable(declarations.get(capability));
      Observed observed;
      if (declared.isEmpty()) {
        observed = Observed.UNDECLARED;
      } else if (passed + failed + skipped == 0) {
        observed = Observed.NOT_CHECKED;
      } else if (failed > 0 || passed == 0) {
        observed = Observed.BROKEN;
      } else {
        observed = declared.get() ? Observed.HOLDS : Observed.ABSENT;
      }
      rows.add(new CapabilityRow(capability, declared, observed, passed, failed, skipped));
    }
    return rows;
  }

  /** Which commit strategies are safe on this backend, from the checks they rest on. */
  public List<StrategyVerdict> strategies() {
    Map<Capability, Observed> observed = new LinkedHashMap<>();
    capabilityMatrix().forEach(r -> observed.put(r.capability(), r.observed()));
    List<StrategyVerdict> out = new ArrayList<>();
    out.add(
        verdict(
            "atomic-create",
            Capability.ATOMIC_CREATE,
            observed,
            "CommitContract.concurrentCommitsWithAtomicCreate",
            "CommitContract.concurrentCommitsWithAtomicCreateUnderFaults"));
    out.add(
        verdict(
            "rename",
            Capability.ATOMIC_RENAME,
            observed,
            "CommitContract.concurrentCommitsWithRename",
            "CommitContract.concurrentCommitsWithRenameUnderFaults"));
    out.add(
        verdict(
            "lock",
            Capability.LOCK,
            observed,
            "CommitContract.concurrentCommitsUnderLock",
            "CommitContract.concurrentCommitsUnderLockUnderFaults"));
    return out;
  }

  private StrategyVerdict verdict(
      String strategy,
      Capability capability,
      Map<Capability, Observed> observed,
      String... commitChecks) {
    Observed o = observed.get(capability);
    if (o != Observed.HOLDS) {
      String state = o.name().replace('_', ' ').toLowerCase(java.util.Locale.ROOT);
      return new StrategyVerdict(strategy, false, capability + " is " + state);
    }
    Observed store = observed.get(Capability.STORE_BASICS);
    if (store != Observed.HOLDS) {
      return new StrategyVerdict(
          strategy,
          false,
          "store basics are " + store.name().replace('_', ' ').toLowerCase(java.util.Locale.ROOT));
    }
    List<String> needed = new ArrayList<>(List.of(commitChecks));
    checks.stream()
        .filter(c -> c.contract().equals("UncertainOutcomeContract"))
        .forEach(c -> needed.add(c.name()));
    for (String name : needed) {
      Optional<CheckResult> c = check(name);
      if (c.isEmpty() || c.get().status() != Status.PASSED) {
        return new StrategyVerdict(
            strategy,
            false,
            name
                + " "
                + c.map(r -> r.status().name().toLowerCase(java.util.Locale.ROOT))
                    .orElse("did not run"));
      }
    }
    return new StrategyVerdict(
        strategy,
        true,
        capability
            + " holds; concurrent commits (also under"
            + " faults) and uncertain outcomes pass");
  }
}
