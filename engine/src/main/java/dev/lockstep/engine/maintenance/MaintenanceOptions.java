package dev.lockstep.engine.maintenance;

import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.Options;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Snapshot-expiration options, parsed once from a table's merged options (catalog, table, dynamic).
 * Keys match Apache Paimon.
 *
 * <p>A snapshot S is expired only when all of these hold: at least {@code
 * snapshot.num-retained.min} newer snapshots remain; and either the snapshot after S was committed
 * more than {@code snapshot.time-retained} ago (so S stopped being the latest that long ago), or
 * more than {@code snapshot.num-retained.max} snapshots would remain. One run expires at most
 * {@code snapshot.expire.limit} snapshots. Expiration deletes history: a lower {@code
 * snapshot.time-retained} shortens the time a reader may take (see {@link SnapshotExpiration}).
 */
public record MaintenanceOptions(
    int numRetainedMin, int numRetainedMax, Duration timeRetained, int expireLimit) {

  public static final String NUM_RETAINED_MIN = "snapshot.num-retained.min";
  public static final int NUM_RETAINED_MIN_DEFAULT = 10;

  /** Default: no upper bound (Paimon's default too); only time expires snapshots. */
  public static final String NUM_RETAINED_MAX = "snapshot.num-retained.max";

  public static final int NUM_RETAINED_MAX_DEFAULT = Integer.MAX_VALUE;

  /** Can lose history: snapshots older than this become unreadable once expired. */
  public static final String TIME_RETAINED = "snapshot.time-retained";

  /** Alias of {@link #TIME_RETAINED}; the main key wins when both are set. */
  public static final String TIME_TO_LIVE = "snapshot.time-to-live";

  public static final Duration TIME_RETAINED_DEFAULT = Duration.ofHours(1);
  public static final String EXPIRE_LIMIT = "snapshot.expire.limit";
  public static final int EXPIRE_LIMIT_DEFAULT = 10;

  static final ConfigOption<Integer> NUM_RETAINED_MIN_OPTION =
      ConfigOption.key(NUM_RETAINED_MIN)
          .intType()
          .defaultValue(NUM_RETAINED_MIN_DEFAULT)
          .require(m -> m >= 1, "at least 1 (the latest snapshot is never expired)")
          .withDescription("expiration keeps at least this many snapshots (≥ 1)");
  static final ConfigOption<Integer> NUM_RETAINED_MAX_OPTION =
      ConfigOption.key(NUM_RETAINED_MAX)
          .intType()
          .defaultValue(NUM_RETAINED_MAX_DEFAULT)
          .withDefaultText("`Integer.MAX_VALUE`")
          .withDescription("above this many, the oldest expire whatever their age");
  static final ConfigOption<Duration> TIME_RETAINED_OPTION =
      ConfigOption.key(TIME_RETAINED)
          .durationType()
          .defaultValue(TIME_RETAINED_DEFAULT)
          .withFallbackKeys(TIME_TO_LIVE)
          .require(Requirement.notNegative())
          .withDescription(
              "a snapshot expires only once its successor is older than this; deletes"
                  + " history");
  static final ConfigOption<Integer> EXPIRE_LIMIT_OPTION =
      ConfigOption.key(EXPIRE_LIMIT)
          .intType()
          .defaultValue(EXPIRE_LIMIT_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription("most snapshots one expiration run expires");

  /** The expiration options, in the order of the README table. */
  public static final List<ConfigOption<?>> OPTIONS =
      List.of(
          NUM_RETAINED_MIN_OPTION,
          NUM_RETAINED_MAX_OPTION,
          TIME_RETAINED_OPTION,
          EXPIRE_LIMIT_OPTION);

  public MaintenanceOptions {
    NUM_RETAINED_MIN_OPTION.check(numRetainedMin);
    require(
        numRetainedMax >= numRetainedMin,
        NUM_RETAINED_MAX,
        numRetainedMax,
        "at least '" + NUM_RETAINED_MIN + "' (" + numRetainedMin + ")");
    TIME_RETAINED_OPTION.check(timeRetained);
    EXPIRE_LIMIT_OPTION.check(expireLimit);
  }

  private static void require(boolean ok, String key, Object value, String what) {
    if (!ok) {
      throw new IllegalArgumentException(
          "Option '" + key + "' is " + value + "; it must be " + what + ".");
    }
  }

  /**
   * Parses the expiration options; @throws IllegalArgumentException naming a bad key and the fix
   */
  public static MaintenanceOptions from(Map<String, String> values) {
    Options o = Options.of(values);
    return new MaintenanceOptions(
        o.get(NUM_RETAINED_MIN_OPTION),
        o.get(NUM_RETAINED_MAX_OPTION),
        o.get(TIME_RETAINED_OPTION),
        o.get(EXPIRE_LIMIT_OPTION));
  }

  /** The same options with {@code overrides} applied (for a one-off run, e.g. from the CLI). */
  public MaintenanceOptions with(Integer min, Integer max, Duration time, Integer limit) {
    return new MaintenanceOptions(
        min == null ? numRetainedMin : min,
        max == null ? numRetainedMax : max,
        time == null ? timeRetained : time,
        limit == null ? expireLimit : limit);
  }
}
