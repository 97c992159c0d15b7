package dev.lockstep.lock;

import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.Options;
import java.time.Duration;
import java.util.Map;

/**
 * The generic lock options, parsed once.
 *
 * @param enabled {@value #LOCK_ENABLED}: commit under a catalog lock
 * @param type {@value #LOCK_TYPE}: the backend identifier, or {@code null} when not set
 * @param acquireTimeout {@value #LOCK_ACQUIRE_TIMEOUT}: give up acquiring after this
 * @param checkMaxSleep {@value #LOCK_CHECK_MAX_SLEEP}: the longest wait between acquire attempts
 */
public record LockOptions(
    boolean enabled, String type, Duration acquireTimeout, Duration checkMaxSleep) {

  public static final String LOCK_ENABLED = "lock.enabled";
  public static final boolean LOCK_ENABLED_DEFAULT = false;
  public static final String LOCK_TYPE = "lock.type";
  public static final String LOCK_ACQUIRE_TIMEOUT = "lock-acquire-timeout";
  public static final Duration LOCK_ACQUIRE_TIMEOUT_DEFAULT = Duration.ofMinutes(8);
  public static final String LOCK_CHECK_MAX_SLEEP = "lock-check-max-sleep";
  public static final Duration LOCK_CHECK_MAX_SLEEP_DEFAULT = Duration.ofSeconds(8);

  public static final ConfigOption<Boolean> LOCK_ENABLED_OPTION =
      ConfigOption.key(LOCK_ENABLED)
          .booleanType()
          .defaultValue(LOCK_ENABLED_DEFAULT)
          .withDescription("commit under the catalog lock");
  public static final ConfigOption<String> LOCK_TYPE_OPTION =
      ConfigOption.key(LOCK_TYPE)
          .stringType()
          .noDefaultValue()
          .withDescription("lock backend identifier: `zookeeper`, `jdbc`, `hive` or a vendor's");
  public static final ConfigOption<Duration> LOCK_ACQUIRE_TIMEOUT_OPTION =
      ConfigOption.key(LOCK_ACQUIRE_TIMEOUT)
          .durationType()
          .defaultValue(LOCK_ACQUIRE_TIMEOUT_DEFAULT)
          .require(Requirement.notNegative())
          .withDescription(
              "give up acquiring after this; the commit then fails with"
                  + " `LockNotAcquiredException`, once per commit");
  public static final ConfigOption<Duration> LOCK_CHECK_MAX_SLEEP_OPTION =
      ConfigOption.key(LOCK_CHECK_MAX_SLEEP)
          .durationType()
          .defaultValue(LOCK_CHECK_MAX_SLEEP_DEFAULT)
          .require(Requirement.positive())
          .withDescription("longest wait between acquire attempts (backends)");

  public LockOptions {
    LOCK_ACQUIRE_TIMEOUT_OPTION.check(acquireTimeout);
    LOCK_CHECK_MAX_SLEEP_OPTION.check(checkMaxSleep);
  }

  public static LockOptions from(Map<String, String> options) {
    return from(Options.of(options));
  }

  public static LockOptions from(Options options) {
    String type = options.get(LOCK_TYPE_OPTION);
    return new LockOptions(
        options.get(LOCK_ENABLED_OPTION),
        type == null || type.isBlank() ? null : type.trim(),
        options.get(LOCK_ACQUIRE_TIMEOUT_OPTION),
        options.get(LOCK_CHECK_MAX_SLEEP_OPTION));
  }
}
