package dev.lockstep.conformance;

import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.OptionSet;
import dev.lockstep.options.Options;
import java.time.Duration;
import java.util.Map;

/**
 * The kit's own knobs, read from the target's {@code conformance.*} options and parsed once.
 * Defaults are moderate so that the kit runs in a few minutes on a small machine; a vendor
 * publishing a verdict raises the round counts.
 *
 * @param rounds {@value #ROUNDS}: rounds of each atomic create / rename race
 * @param contenders {@value #CONTENDERS}: contenders per race round and per lock race
 * @param committers {@value #COMMITTERS}: K concurrent committers in the commit checks
 * @param commitsPerCommitter {@value #COMMITS_PER_COMMITTER}: C commits each
 * @param lockIncrements {@value #LOCK_INCREMENTS}: critical sections per contender in the lock
 *     race, and sequential holders in the fencing check
 * @param faultRate {@value #FAULT_RATE}: share of store calls that fail or lose their answer in the
 *     fault-injecting commit checks
 * @param largeObjectBytes {@value #LARGE_OBJECT_SIZE}: size of the large-object check (at least 64
 *     MiB for a verdict, so that multi-part upload paths run)
 * @param timeFactor {@value #TIME_FACTOR}: scales every wait and tolerance of the kit
 * @param tolerance {@value #TOLERANCE}: slack allowed beyond a stated bound (timed acquire, holder
 *     death), before scaling
 * @param keepFiles {@value #KEEP_FILES}: keep each check's files for inspection instead of deleting
 */
public record ConformanceSettings(
    int rounds,
    int contenders,
    int committers,
    int commitsPerCommitter,
    int lockIncrements,
    double faultRate,
    long largeObjectBytes,
    double timeFactor,
    Duration tolerance,
    boolean keepFiles) {

  public static final String ROUNDS = "conformance.rounds";
  public static final int ROUNDS_DEFAULT = 100;
  public static final String CONTENDERS = "conformance.contenders";
  public static final int CONTENDERS_DEFAULT = 8;
  public static final String COMMITTERS = "conformance.committers";
  public static final int COMMITTERS_DEFAULT = 4;
  public static final String COMMITS_PER_COMMITTER = "conformance.commits-per-committer";
  public static final int COMMITS_PER_COMMITTER_DEFAULT = 10;
  public static final String LOCK_INCREMENTS = "conformance.lock-increments";
  public static final int LOCK_INCREMENTS_DEFAULT = 25;
  public static final String FAULT_RATE = "conformance.fault-rate";
  public static final double FAULT_RATE_DEFAULT = 0.05;
  public static final String LARGE_OBJECT_SIZE = "conformance.large-object-size";
  public static final long LARGE_OBJECT_SIZE_DEFAULT = 64L << 20;

  /**
   * The smallest {@value #LARGE_OBJECT_SIZE} for a publishable verdict (64 MiB): smaller runs are
   * allowed, and every report flags them.
   */
  public static final long LARGE_OBJECT_SIZE_FOR_VERDICT = 64L << 20;

  public static final String TIME_FACTOR = "conformance.time-factor";
  public static final double TIME_FACTOR_DEFAULT = 1.0;
  public static final String TOLERANCE = "conformance.tolerance";
  public static final Duration TOLERANCE_DEFAULT = Duration.ofSeconds(2);
  public static final String KEEP_FILES = "conformance.keep-files";
  public static final boolean KEEP_FILES_DEFAULT = false;

  static final ConfigOption<Integer> ROUNDS_OPTION =
      ConfigOption.key(ROUNDS)
          .intType()
          .defaultValue(ROUNDS_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription("rounds of each atomic create / rename race");
  static final ConfigOption<Integer> CONTENDERS_OPTION =
      ConfigOption.key(CONTENDERS)
          .intType()
          .defaultValue(CONTENDERS_DEFAULT)
          .require(Requirement.atLeast(2))
          .withDescription("contenders per race round and in the lock races");
  static final ConfigOption<Integer> COMMITTERS_OPTION =
      ConfigOption.key(COMMITTERS)
          .intType()
          .defaultValue(COMMITTERS_DEFAULT)
          .require(Requirement.atLeast(2))
          .withDescription("K concurrent committers in the commit checks");
  static final ConfigOption<Integer> COMMITS_PER_COMMITTER_OPTION =
      ConfigOption.key(COMMITS_PER_COMMITTER)
          .intType()
          .defaultValue(COMMITS_PER_COMMITTER_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription("C commits each (K*C snapshots)");
  static final ConfigOption<Integer> LOCK_INCREMENTS_OPTION =
      ConfigOption.key(LOCK_INCREMENTS)
          .intType()
          .defaultValue(LOCK_INCREMENTS_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription(
              "critical sections per contender in the mutual-exclusion check, and"
                  + " sequential holders in the fencing check");
  static final ConfigOption<Double> FAULT_RATE_OPTION =
      ConfigOption.key(FAULT_RATE)
          .doubleType()
          .defaultValue(FAULT_RATE_DEFAULT)
          .require(r -> r > 0 && r < 0.5, "a share between 0 and 0.5, for example 0.05")
          .withDescription(
              "share of store calls that fail or lose their answer in the"
                  + " `...UnderFaults` checks");
  static final ConfigOption<Long> LARGE_OBJECT_SIZE_OPTION =
      ConfigOption.key(LARGE_OBJECT_SIZE)
          .sizeType()
          .defaultValue(LARGE_OBJECT_SIZE_DEFAULT)
          .require(b -> b >= 1, "positive")
          .withDescription(
              "size of the large-object check (keep at least 64 MiB so multi-part paths"
                  + " run; smaller runs are flagged as reduced in every report)");
  static final ConfigOption<Double> TIME_FACTOR_OPTION =
      ConfigOption.key(TIME_FACTOR)
          .doubleType()
          .defaultValue(TIME_FACTOR_DEFAULT)
          .require(
              f -> f >= 0.1 && f <= 100,
              "a factor between 0.1 and 100, for example 2 on a slow machine")
          .withDescription("scales every wait and tolerance of the kit (slow machines: 2 or 3)");
  static final ConfigOption<Duration> TOLERANCE_OPTION =
      ConfigOption.key(TOLERANCE)
          .durationType()
          .defaultValue(TOLERANCE_DEFAULT)
          .withDescription(
              "slack beyond a stated bound (timed acquire, holder death), before scaling");
  static final ConfigOption<Boolean> KEEP_FILES_OPTION =
      ConfigOption.key(KEEP_FILES)
          .booleanType()
          .defaultValue(KEEP_FILES_DEFAULT)
          .withDescription("keep each check's files for inspection");

  /** The kit's settings: every key under {@code conformance.}. */
  public static final OptionSet OPTIONS =
      OptionSet.of("the conformance kit", "conformance-tests/README.md")
          .namespace("conformance.")
          .option(
              ROUNDS_OPTION,
              CONTENDERS_OPTION,
              COMMITTERS_OPTION,
              COMMITS_PER_COMMITTER_OPTION,
              LOCK_INCREMENTS_OPTION,
              FAULT_RATE_OPTION,
              LARGE_OBJECT_SIZE_OPTION,
              TIME_FACTOR_OPTION,
              TOLERANCE_OPTION,
              KEEP_FILES_OPTION)
          .build();

  public ConformanceSettings {
    ROUNDS_OPTION.check(rounds);
    CONTENDERS_OPTION.check(contenders);
    COMMITTERS_OPTION.check(committers);
    COMMITS_PER_COMMITTER_OPTION.check(commitsPerCommitter);
    LOCK_INCREMENTS_OPTION.check(lockIncrements);
    FAULT_RATE_OPTION.check(faultRate);
    LARGE_OBJECT_SIZE_OPTION.check(largeObjectBytes);
    TIME_FACTOR_OPTION.check(timeFactor);
  }

  /**
   * Why a run with these settings is not a publishable verdict, one sentence per reduced setting;
   * empty when nothing is reduced. Reports show each as a warning next to the verdict.
   */
  public java.util.List<String> reductions() {
    if (largeObjectBytes >= LARGE_OBJECT_SIZE_FOR_VERDICT) {
      return java.util.List.of();
    }
    return java.util.List.of(
        "Option '"
            + LARGE_OBJECT_SIZE
            + "' is "
            + largeObjectBytes
            + " bytes, below the 64 MiB a published verdict needs: the large-object check may not"
            + " have reached the store's multi-part upload path. Not a publishable verdict; run"
            + " with the default (64MiB) or more.");
  }

  /**
   * Parses the {@code conformance.*} options of {@code options}; others are ignored.
   *
   * @throws IllegalArgumentException naming the key and the fix; an unknown {@code conformance.*}
   *     key is refused with the nearest known key
   */
  public static ConformanceSettings from(Map<String, String> options) {
    OPTIONS.checkNamespace(options);
    Options o = Options.of(options);
    return new ConformanceSettings(
        o.get(ROUNDS_OPTION),
        o.get(CONTENDERS_OPTION),
        o.get(COMMITTERS_OPTION),
        o.get(COMMITS_PER_COMMITTER_OPTION),
        o.get(LOCK_INCREMENTS_OPTION),
        o.get(FAULT_RATE_OPTION),
        o.get(LARGE_OBJECT_SIZE_OPTION),
        o.get(TIME_FACTOR_OPTION),
        o.get(TOLERANCE_OPTION),
        o.get(KEEP_FILES_OPTION));
  }

  /** {@code duration} scaled by {@link #timeFactor}. */
  public Duration scaled(Duration duration) {
    return Duration.ofNanos((long) (duration.toNanos() * timeFactor));
  }

  /** The tolerance, scaled. */
  public Duration scaledTolerance() {
    return scaled(tolerance);
  }
}
