package dev.lockstep.lock;

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
public record LockOptions(boolean enabled, String type, Duration acquireTimeout,
    Duration checkMaxSleep) {

  public static final String LOCK_ENABLED = "lock.enabled";
  public static final boolean LOCK_ENABLED_DEFAULT = false;
  public static final String LOCK_TYPE = "lock.type";
  public static final String LOCK_ACQUIRE_TIMEOUT = "lock-acquire-timeout";
  public static final Duration LOCK_ACQUIRE_TIMEOUT_DEFAULT = Duration.ofMinutes(8);
  public static final String LOCK_CHECK_MAX_SLEEP = "lock-check-max-sleep";
  public static final Duration LOCK_CHECK_MAX_SLEEP_DEFAULT = Duration.ofSeconds(8);

  public LockOptions {
    if (acquireTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "Option '" + LOCK_ACQUIRE_TIMEOUT + "' must not be negative: " + acquireTimeout);
    }
    if (checkMaxSleep.isNegative() || checkMaxSleep.isZero()) {
      throw new IllegalArgumentException(
          "Option '" + LOCK_CHECK_MAX_SLEEP + "' must be positive: " + checkMaxSleep);
    }
  }

  public static LockOptions from(Map<String, String> options) {
    return from(Options.of(options));
  }

  public static LockOptions from(Options options) {
    String type = options.get(LOCK_TYPE);
    return new LockOptions(
        options.getBoolean(LOCK_ENABLED, LOCK_ENABLED_DEFAULT),
        type == null || type.isBlank() ? null : type.trim(),
        options.getDuration(LOCK_ACQUIRE_TIMEOUT, LOCK_ACQUIRE_TIMEOUT_DEFAULT),
        options.getDuration(LOCK_CHECK_MAX_SLEEP, LOCK_CHECK_MAX_SLEEP_DEFAULT));
  }
}
