package dev.lockstep.lock.jdbc;

import dev.lockstep.lock.LockOptions;
import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.Durations;
import dev.lockstep.options.OptionSet;
import dev.lockstep.options.Options;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The options of the JDBC lock ({@code lock.jdbc.*}), parsed and validated once.
 *
 * @param url {@value #URL}: the JDBC URL; its prefix picks the dialect and driver
 * @param user {@value #USER}: the database user, or {@code null} to let the driver decide
 * @param password {@value #PASSWORD}: a secret, never logged and never part of {@link #toString()}
 * @param table {@value #TABLE}: the lock table, a plain or schema-qualified SQL identifier
 * @param leaseTtl {@value #LEASE_TTL}: how long a lease lives without a renewal; the holder-death
 *     bound
 * @param poolSize {@value #POOL_SIZE}: the connection pool's size; every held lease keeps one
 *     connection, so this bounds the leases one client can hold at once plus its acquire attempts
 * @param waitMode {@value #WAIT}: how a waiter learns that the key was released
 * @param driverProperties {@value #DRIVER_PROPERTY_PREFIX}{@code <name>}: passed to the driver as
 *     is (TLS settings, timeouts); may hold secrets, never logged
 * @param lock the generic lock options ({@code lock-acquire-timeout}, {@code lock-check-max-sleep})
 */
public record JdbcLockOptions(
    String url,
    String user,
    String password,
    String table,
    Duration leaseTtl,
    int poolSize,
    WaitMode waitMode,
    Map<String, String> driverProperties,
    LockOptions lock) {

  public static final String PREFIX = "lock.jdbc.";
  public static final String URL = "lock.jdbc.url";
  public static final String USER = "lock.jdbc.user";

  /** Secret: never logged. */
  public static final String PASSWORD = "lock.jdbc.password";

  public static final String TABLE = "lock.jdbc.table";
  public static final String TABLE_DEFAULT = "lockstep_locks";

  /**
   * A lease not renewed for this long is free for others. Shorter frees a dead holder's lock
   * sooner; too short turns a slow database or a long GC pause into lost leases (never into two
   * holders).
   */
  public static final String LEASE_TTL = "lock.jdbc.lease-ttl";

  public static final Duration LEASE_TTL_DEFAULT = Duration.ofSeconds(60);
  public static final Duration LEASE_TTL_MIN = Duration.ofSeconds(1);
  public static final String POOL_SIZE = "lock.jdbc.pool-size";
  public static final int POOL_SIZE_DEFAULT = 10;
  public static final String DRIVER_PROPERTY_PREFIX = "lock.jdbc.property.";
  public static final String WAIT = "lock.jdbc.wait";

  /** How a waiter for a held key learns that it was released. */
  public enum WaitMode {
    /**
     * Queue on the database's named lock ({@code GET_LOCK}, {@code pg_advisory_lock}), which the
     * holder keeps while it holds the row: a release wakes the next waiter at once.
     */
    DATABASE,
    /** Poll the row after a jittered wait doubling from 10 ms to {@code lock-check-max-sleep}. */
    POLL
  }

  static final ConfigOption<String> URL_OPTION =
      ConfigOption.key(URL)
          .stringType()
          .noDefaultValue()
          .withDefaultText("(required)")
          .withDescription("JDBC URL; its prefix picks driver and dialect (below)");
  static final ConfigOption<String> USER_OPTION =
      ConfigOption.key(USER)
          .stringType()
          .noDefaultValue()
          .withDefaultText("driver default")
          .withDescription("database user");
  static final ConfigOption<String> PASSWORD_OPTION =
      ConfigOption.key(PASSWORD)
          .stringType()
          .noDefaultValue()
          .secret()
          .withDefaultText("none")
          .withDescription(
              "**secret**: never logged, never in a message; a `password=` in the URL is"
                  + " masked too");
  static final ConfigOption<String> TABLE_OPTION =
      ConfigOption.key(TABLE)
          .stringType()
          .defaultValue(TABLE_DEFAULT)
          .withDescription(
              "lock table; letters, digits, `_`, optionally `schema.table`; created when"
                  + " missing");
  static final ConfigOption<Duration> LEASE_TTL_OPTION =
      ConfigOption.key(LEASE_TTL)
          .durationType()
          .defaultValue(LEASE_TTL_DEFAULT)
          .require(Requirement.atLeast(LEASE_TTL_MIN))
          .withDescription(
              "a lease not renewed for this long is free for others; minimum `1 s`."
                  + " Shorter frees a dead holder's lock sooner; too short turns a slow database or a long GC"
                  + " pause into lost leases (never into two holders)");
  static final ConfigOption<Integer> POOL_SIZE_OPTION =
      ConfigOption.key(POOL_SIZE)
          .intType()
          .defaultValue(POOL_SIZE_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription(
              "HikariCP pool size. **Every held lease keeps one connection**: this bounds"
                  + " the leases one client holds at once plus its acquire attempts in flight");
  static final ConfigOption<WaitMode> WAIT_OPTION =
      ConfigOption.key(WAIT)
          .enumType(WaitMode.class)
          .defaultValue(WaitMode.DATABASE)
          .withDescription(
              "how a waiter learns of a release. `database`: it waits in the database on a"
                  + " named lock (`GET_LOCK`, `pg_advisory_lock`) that the holder keeps, and is woken at the"
                  + " release; ownership is still decided by the row alone. `poll`: it re-reads the row after"
                  + " a wait doubling from 10 ms to `lock-check-max-sleep` (the behaviour before issue 25),"
                  + " for a proxy that does not keep session-level locks");

  /** What the JDBC lock reads: every key under {@value #PREFIX}. */
  public static final OptionSet OPTIONS =
      OptionSet.of("the JDBC lock", "lock-jdbc/README.md")
          .namespace(PREFIX)
          .option(
              URL_OPTION,
              USER_OPTION,
              PASSWORD_OPTION,
              TABLE_OPTION,
              LEASE_TTL_OPTION,
              POOL_SIZE_OPTION,
              WAIT_OPTION)
          .passThrough(DRIVER_PROPERTY_PREFIX)
          .build();

  private static final String IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]{0,62}";
  private static final Pattern TABLE_NAME =
      Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")?");
  private static final Pattern URL_SECRET =
      Pattern.compile("(?i)((?:password|pwd|passwd|sslpassword|secret)[^=&;/]*=)[^&;]*");
  private static final Pattern URL_USERINFO = Pattern.compile("//([^/@:]*):[^/@]*@");

  public JdbcLockOptions {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(leaseTtl, "leaseTtl");
    Objects.requireNonNull(waitMode, "waitMode");
    Objects.requireNonNull(lock, "lock");
    driverProperties = Map.copyOf(driverProperties);
    JdbcDialect.fromUrl(url);
    if (!TABLE_NAME.matcher(table).matches()) {
      throw new IllegalArgumentException(
          "Option '"
              + TABLE
              + "' is '"
              + table
              + "', which is not a"
              + " plain SQL identifier. Write letters, digits and '_' (not starting with a digit, at most 63"
              + " characters), optionally qualified by a schema: 'lockstep_locks' or 'ops.lockstep_locks'.");
    }
    LEASE_TTL_OPTION.check(leaseTtl);
    POOL_SIZE_OPTION.check(poolSize);
  }

  /**
   * Parses the options.
   *
   * @throws IllegalArgumentException naming the key and the fix, for a missing URL, an invalid
   *     value or an unknown {@code lock.jdbc.*} key (a typo would otherwise be ignored silently)
   */
  public static JdbcLockOptions from(Map<String, String> options) {
    OPTIONS.checkNamespace(options);
    Options o = Options.of(options);
    String url =
        o.getRequired(
                URL,
                "the JDBC URL of the lock database, for example"
                    + " jdbc:mariadb://db:3306/lockstep, jdbc:mysql://db:3306/lockstep or"
                    + " jdbc:postgresql://db:5432/lockstep")
            .trim();
    String user = o.get(USER_OPTION);
    Map<String, String> driverProperties = new TreeMap<>(o.withPrefix(DRIVER_PROPERTY_PREFIX));
    return new JdbcLockOptions(
        url,
        user == null || user.isBlank() ? null : user.trim(),
        o.get(PASSWORD_OPTION),
        o.get(TABLE_OPTION).trim(),
        o.get(LEASE_TTL_OPTION),
        o.get(POOL_SIZE_OPTION),
        o.get(WAIT_OPTION),
        driverProperties,
        LockOptions.from(o));
  }

  /** The dialect the URL names. */
  public JdbcDialect dialect() {
    return JdbcDialect.fromUrl(url);
  }

  /** The URL with any password or user-info secret in it masked, for messages and logs. */
  public String redactedUrl() {
    return redact(url);
  }

  /**
   * Masks {@code password=...}-style parameters and {@code user:secret@} user info in a JDBC URL.
   */
  static String redact(String url) {
    String masked = URL_SECRET.matcher(url).replaceAll("$1******");
    return URL_USERINFO.matcher(masked).replaceAll("//$1:******@");
  }

  /** Never prints the password or driver properties' values. */
  @Override
  public String toString() {
    return "JdbcLockOptions{url="
        + redactedUrl()
        + ", user="
        + user
        + ", password="
        + (password == null ? "(none)" : "******")
        + ", table="
        + table
        + ", leaseTtl="
        + Durations.format(leaseTtl)
        + ", poolSize="
        + poolSize
        + ", wait="
        + waitMode
        + ", driverProperties="
        + driverProperties.keySet()
        + "}";
  }
}
