package dev.lockstep.conformance;

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

  public ConformanceSettings {
    atLeast(ROUNDS, rounds, 1);
    atLeast(CONTENDERS, contenders, 2);
    atLeast(COMMITTERS, committers, 2);
    atLeast(COMMITS_PER_COMMITTER, commitsPerCommitter, 1);
    atLeast(LOCK_INCREMENTS, lockIncrements, 1);
    if (!(faultRate > 0 && faultRate < 0.5)) {
      throw new IllegalArgumentException(
          "Option '"
              + FAULT_RATE
              + "' is "
              + faultRate
              + "; write a share between 0 and 0.5, for example 0.05.");
    }
    if (largeObjectBytes < 1) {
      throw new IllegalArgumentException("Option '" + LARGE_OBJECT_SIZE + "' must be positive.");
    }
    if (!(timeFactor >= 0.1 && timeFactor <= 100)) {
      throw new IllegalArgumentException(
          "Option '"
              + TIME_FACTOR
              + "' is "
              + timeFactor
              + "; write a factor between 0.1 and 100, for example 2 on a slow machine.");
    }
  }

  private static void atLeast(String key, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(
          "Option '" + key + "' is " + value + "; it must be at least " + min + ".");
    }
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

  /** Parses the {@code conformance.*} options of {@code options}; others are ignored. */
  public static ConformanceSettings from(Map<String, String> options) {
    Options o = Options.of(options);
    return new ConformanceSettings(
        o.getInt(ROUNDS, ROUNDS_DEFAULT),
        o.getInt(CONTENDERS, CONTENDERS_DEFAULT),
        o.getInt(COMMITTERS, COMMITTERS_DEFAULT),
        o.getInt(COMMITS_PER_COMMITTER, COMMITS_PER_COMMITTER_DEFAULT),
        o.getInt(LOCK_INCREMENTS, LOCK_INCREMENTS_DEFAULT),
        parseDouble(o, FAULT_RATE, FAULT_RATE_DEFAULT),
        parseSize(o.get(LARGE_OBJECT_SIZE), LARGE_OBJECT_SIZE_DEFAULT),
        parseDouble(o, TIME_FACTOR, TIME_FACTOR_DEFAULT),
        o.getDuration(TOLERANCE, TOLERANCE_DEFAULT),
        o.getBoolean(KEEP_FILES, KEEP_FILES_DEFAULT));
  }

  /** {@code duration} scaled by {@link #timeFactor}. */
  public Duration scaled(Duration duration) {
    return Duration.ofNanos((long) (duration.toNanos() * timeFactor));
  }

  /** The tolerance, scaled. */
  public Duration scaledTolerance() {
    return scaled(tolerance);
  }

  private static double parseDouble(Options o, String key, double defaultValue) {
    String value = o.get(key);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Option '" + key + "' is '" + value + "'; write a number.", e);
    }
  }

  /** Parses {@code 64MiB}, {@code 64 MB}, {@code 1 GiB} or a plain byte count. */
  static long parseSize(String value, long defaultValue) {
    if (value == null) {
      return defaultValue;
    }
    String text = value.trim().toLowerCase(java.util.Locale.ROOT).replace(" ", "");
    long unit = 1;
    String[][] units = {
      {"gib", "1073741824"},
      {"gb", "1073741824"},
      {"mib", "1048576"},
      {"mb", "1048576"},
      {"kib", "1024"},
      {"kb", "1024"},
      {"b", "1"}
    };
    for (String[] u : units) {
      if (text.endsWith(u[0])) {
        unit = Long.parseLong(u[1]);
        text = text.substring(0, text.length() - u[0].length());
        break;
      }
    }
    try {
      return Math.multiplyExact(Long.parseLong(text), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          "Option '" + LARGE_OBJECT_SIZE + "' is '" + value + "'; write a size such as 64MiB.", e);
    }
  }
}
