package dev.lockstep.lock.zookeeper;

import dev.lockstep.lock.LockOptions;
import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.Durations;
import dev.lockstep.options.OptionSet;
import dev.lockstep.options.Options;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/**
 * The options of the {@code zookeeper} lock, parsed once and validated.
 *
 * @param connectString {@value #CONNECT_STRING} (required): {@code host:port[,host:port...]}
 * @param basePath {@value #BASE_PATH}: the znode under which each key gets its lock node
 * @param sessionTimeout {@value #SESSION_TIMEOUT}: asked of the server (which may clamp it to
 *     {@code [2, 20] x tickTime}); a dead holder's lock is freed after the negotiated value
 * @param connectionTimeout {@value #CONNECTION_TIMEOUT}: how long to wait for a connection before
 *     an operation fails, and how long {@code acquire} waits to reach ZooKeeper at all
 * @param retryBaseSleep {@value #RETRY_BASE_SLEEP}: first wait of the exponential retry of an
 *     operation
 * @param retryMaxSleep {@value #RETRY_MAX_SLEEP}: longest wait between retries
 * @param retryMaxAttempts {@value #RETRY_MAX_ATTEMPTS}: retries of one operation after a connection
 *     loss
 * @param authUser {@value #AUTH_USER}: digest authentication user, or {@code null}
 * @param authPassword {@value #AUTH_PASSWORD} (secret, never logged): digest password, or {@code
 *     null}
 * @param acl {@value #ACL}: the ACL of lock znodes
 * @param lock the generic lock options ({@code lock-acquire-timeout}, {@code lock-check-max-sleep})
 */
public record ZooKeeperLockOptions(
    String connectString,
    String basePath,
    Duration sessionTimeout,
    Duration connectionTimeout,
    Duration retryBaseSleep,
    Duration retryMaxSleep,
    int retryMaxAttempts,
    String authUser,
    String authPassword,
    List<ACL> acl,
    LockOptions lock) {

  public static final String PREFIX = "lock.zookeeper.";
  public static final String CONNECT_STRING = PREFIX + "connect-string";
  public static final String BASE_PATH = PREFIX + "base-path";
  public static final String BASE_PATH_DEFAULT = "/lockstep/locks";
  public static final String SESSION_TIMEOUT = PREFIX + "session-timeout";
  public static final Duration SESSION_TIMEOUT_DEFAULT = Duration.ofSeconds(60);
  public static final String CONNECTION_TIMEOUT = PREFIX + "connection-timeout";
  public static final Duration CONNECTION_TIMEOUT_DEFAULT = Duration.ofSeconds(15);
  public static final String RETRY_BASE_SLEEP = PREFIX + "retry.base-sleep";
  public static final Duration RETRY_BASE_SLEEP_DEFAULT = Duration.ofMillis(200);
  public static final String RETRY_MAX_SLEEP = PREFIX + "retry.max-sleep";
  public static final Duration RETRY_MAX_SLEEP_DEFAULT = Duration.ofSeconds(5);
  public static final String RETRY_MAX_ATTEMPTS = PREFIX + "retry.max-attempts";
  public static final int RETRY_MAX_ATTEMPTS_DEFAULT = 3;
  public static final String AUTH_USER = PREFIX + "auth.user";

  /** A secret: never logged, masked by {@link Options#toString()}. */
  public static final String AUTH_PASSWORD = PREFIX + "auth.password";

  public static final String ACL = PREFIX + "acl";

  /** {@code open} without authentication, {@code creator} with it. */
  public static final String ACL_OPEN = "open";

  public static final String ACL_CREATOR = "creator";

  static final ConfigOption<String> CONNECT_STRING_OPTION =
      ConfigOption.key(CONNECT_STRING)
          .stringType()
          .noDefaultValue()
          .withDefaultText("— (required)")
          .withDescription(
              "`host:port[,host:port...]`. Missing: an error naming the key and the format.");
  static final ConfigOption<String> BASE_PATH_OPTION =
      ConfigOption.key(BASE_PATH)
          .stringType()
          .defaultValue(BASE_PATH_DEFAULT)
          .withDescription(
              "Each key `database.table` gets a node below it: `<base-path>/<key>`. Keys are"
                  + " escaped to valid node names (`%XX` for anything but letters, digits, `.`, `_`, `-`).");
  static final ConfigOption<Duration> SESSION_TIMEOUT_OPTION =
      ConfigOption.key(SESSION_TIMEOUT)
          .durationType()
          .defaultValue(SESSION_TIMEOUT_DEFAULT)
          .require(Requirement.positive())
          .withDescription(
              "Asked of the server, which clamps it to 2..20 × its `tickTime` (40 s with the"
                  + " default tick). A dead or paused holder loses the lock after the negotiated timeout.");
  static final ConfigOption<Duration> CONNECTION_TIMEOUT_OPTION =
      ConfigOption.key(CONNECTION_TIMEOUT)
          .durationType()
          .defaultValue(CONNECTION_TIMEOUT_DEFAULT)
          .require(Requirement.positive())
          .withDescription(
              "How long an operation waits for a connection, and how long `acquire`"
                  + " waits to reach ZooKeeper at all before it fails naming the connect string.");
  static final ConfigOption<Duration> RETRY_BASE_SLEEP_OPTION =
      ConfigOption.key(RETRY_BASE_SLEEP)
          .durationType()
          .defaultValue(RETRY_BASE_SLEEP_DEFAULT)
          .require(Requirement.positive())
          .withDescription(
              "First wait of Curator's exponential backoff retry after a connection loss.");
  static final ConfigOption<Duration> RETRY_MAX_SLEEP_OPTION =
      ConfigOption.key(RETRY_MAX_SLEEP)
          .durationType()
          .defaultValue(RETRY_MAX_SLEEP_DEFAULT)
          .require(Requirement.positive())
          .withDescription("Longest wait between retries.");
  static final ConfigOption<Integer> RETRY_MAX_ATTEMPTS_OPTION =
      ConfigOption.key(RETRY_MAX_ATTEMPTS)
          .intType()
          .defaultValue(RETRY_MAX_ATTEMPTS_DEFAULT)
          .require(Requirement.between(0, 29))
          .withDescription("Retries of one ZooKeeper operation (0..29).");
  static final ConfigOption<String> AUTH_USER_OPTION =
      ConfigOption.key(AUTH_USER)
          .stringType()
          .noDefaultValue()
          .withDescription("Digest authentication user (set together with the password).");
  static final ConfigOption<String> AUTH_PASSWORD_OPTION =
      ConfigOption.key(AUTH_PASSWORD)
          .stringType()
          .noDefaultValue()
          .secret()
          .withDescription(
              "Digest password. **Secret**: never logged, masked in `toString()` and error"
                  + " messages.");
  static final ConfigOption<String> ACL_OPTION =
      ConfigOption.key(ACL)
          .stringType()
          .noDefaultValue()
          .withDefaultText("`open`; `creator` when authenticated")
          .withDescription(
              "ACL of the lock nodes and of the parents the lock creates: `open` (world,"
                  + " all; **anyone who can reach ZooKeeper can delete a lock node and so break the lock** —"
                  + " the holder then sees its lease lost, but another writer may already hold it),"
                  + " `creator` (only the authenticated identity; every writer of a table must use the same"
                  + " user and password), or `scheme:id:perms` entries separated by commas, e.g."
                  + " `digest:lockstep:HASH=:cdrwa,world:anyone:r`.");

  /** What the ZooKeeper lock reads: every key under {@value #PREFIX}. */
  public static final OptionSet OPTIONS =
      OptionSet.of("the ZooKeeper lock", "lock-zookeeper/README.md")
          .namespace(PREFIX)
          .option(
              CONNECT_STRING_OPTION,
              BASE_PATH_OPTION,
              SESSION_TIMEOUT_OPTION,
              CONNECTION_TIMEOUT_OPTION,
              RETRY_BASE_SLEEP_OPTION,
              RETRY_MAX_SLEEP_OPTION,
              RETRY_MAX_ATTEMPTS_OPTION,
              AUTH_USER_OPTION,
              AUTH_PASSWORD_OPTION,
              ACL_OPTION)
          .build();

  public ZooKeeperLockOptions {
    SESSION_TIMEOUT_OPTION.check(sessionTimeout);
    CONNECTION_TIMEOUT_OPTION.check(connectionTimeout);
    RETRY_BASE_SLEEP_OPTION.check(retryBaseSleep);
    RETRY_MAX_SLEEP_OPTION.check(retryMaxSleep);
    RETRY_MAX_ATTEMPTS_OPTION.check(retryMaxAttempts);
    if ((authUser == null) != (authPassword == null)) {
      throw new IllegalArgumentException(
          "Options '"
              + AUTH_USER
              + "' and '"
              + AUTH_PASSWORD
              + "' go together: set both for digest authentication, or neither.");
    }
    if (authUser != null && authUser.contains(":")) {
      throw new IllegalArgumentException("Option '" + AUTH_USER + "' must not contain ':'.");
    }
    acl = List.copyOf(acl);
  }

  /**
   * Parses and validates the options.
   *
   * @throws IllegalArgumentException naming the key and the fix when an option is missing or
   *     invalid ({@link dev.lockstep.options.UnknownOptionException} for an unknown {@code
   *     lock.zookeeper.*} key; other keys are ignored)
   */
  public static ZooKeeperLockOptions from(Map<String, String> map) {
    OPTIONS.checkNamespace(map);
    Options options = Options.of(map);
    String connectString = options.get(CONNECT_STRING_OPTION);
    if (connectString == null || connectString.isBlank()) {
      throw new IllegalArgumentException(
          "Option '"
              + CONNECT_STRING
              + "' is required for"
              + " 'lock.type=zookeeper': the ZooKeeper servers as host:port[,host:port...], for example"
              + " 'zk1:2181,zk2:2181,zk3:2181'.");
    }
    String basePath = normalizeBasePath(options.get(BASE_PATH_OPTION));
    String user = blankToNull(options.get(AUTH_USER_OPTION));
    String password = options.get(AUTH_PASSWORD_OPTION);
    password = password == null || password.isEmpty() ? null : password;
    String aclText = options.get(ACL_OPTION, user == null ? ACL_OPEN : ACL_CREATOR);
    return new ZooKeeperLockOptions(
        connectString.trim(),
        basePath,
        options.get(SESSION_TIMEOUT_OPTION),
        options.get(CONNECTION_TIMEOUT_OPTION),
        options.get(RETRY_BASE_SLEEP_OPTION),
        options.get(RETRY_MAX_SLEEP_OPTION),
        options.get(RETRY_MAX_ATTEMPTS_OPTION),
        user,
        password,
        parseAcl(aclText, user != null),
        LockOptions.from(options));
  }

  /** The digest authentication bytes ({@code user:password}), or {@code null}. Secret. */
  byte[] authBytes() {
    return authUser == null
        ? null
        : (authUser + ":" + authPassword).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses {@value #ACL}: {@code open} (anyone may do anything), {@code creator} (only the
   * authenticated identity that created a node; needs {@value #AUTH_USER}), or a comma-separated
   * list of {@code scheme:id:perms} entries with perms from {@code cdrwa}, for example {@code
   * digest:lockstep:HASH=:cdrwa,world:anyone:r}.
   */
  static List<ACL> parseAcl(String text, boolean authenticated) {
    String value = text.trim();
    if (value.equalsIgnoreCase(ACL_OPEN)) {
      return ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }
    if (value.equalsIgnoreCase(ACL_CREATOR)) {
      if (!authenticated) {
        throw new IllegalArgumentException(
            "Option '"
                + ACL
                + "=creator' needs digest authentication:"
                + " set '"
                + AUTH_USER
                + "' and '"
                + AUTH_PASSWORD
                + "', or use '"
                + ACL
                + "=open'.");
      }
      return ZooDefs.Ids.CREATOR_ALL_ACL;
    }
    List<ACL> acl = new ArrayList<>();
    for (String entry : value.split(",")) {
      String trimmed = entry.trim();
      int first = trimmed.indexOf(':');
      int last = trimmed.lastIndexOf(':');
      if (first <= 0 || last == first || last == trimmed.length() - 1) {
        throw new IllegalArgumentException(
            "Option '"
                + ACL
                + "': cannot read '"
                + trimmed
                + "'. Write 'open', 'creator', or entries scheme:id:perms such as"
                + " 'digest:lockstep:HASH=:cdrwa,world:anyone:r'.");
      }
      String scheme = trimmed.substring(0, first);
      String id = trimmed.substring(first + 1, last);
      acl.add(new ACL(perms(trimmed.substring(last + 1), trimmed), new Id(scheme, id)));
    }
    return acl;
  }

  private static int perms(String letters, String entry) {
    int perms = 0;
    for (char c : letters.toLowerCase(Locale.ROOT).toCharArray()) {
      switch (c) {
        case 'c' -> perms |= ZooDefs.Perms.CREATE;
        case 'd' -> perms |= ZooDefs.Perms.DELETE;
        case 'r' -> perms |= ZooDefs.Perms.READ;
        case 'w' -> perms |= ZooDefs.Perms.WRITE;
        case 'a' -> perms |= ZooDefs.Perms.ADMIN;
        default ->
            throw new IllegalArgumentException(
                "Option '"
                    + ACL
                    + "': '"
                    + entry
                    + "' has permission '"
                    + c
                    + "'; use letters from cdrwa.");
      }
    }
    return perms;
  }

  private static String normalizeBasePath(String path) {
    String trimmed = path.trim();
    if (!trimmed.startsWith("/") || trimmed.contains("//") || trimmed.equals("/")) {
      throw new IllegalArgumentException(
          "Option '"
              + BASE_PATH
              + "' must be an absolute znode path"
              + " below the root, for example '"
              + BASE_PATH_DEFAULT
              + "': '"
              + path
              + "'.");
    }
    return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }

  /** Never prints the password. */
  @Override
  public String toString() {
    return "ZooKeeperLockOptions{"
        + CONNECT_STRING
        + "="
        + connectString
        + ", "
        + BASE_PATH
        + "="
        + basePath
        + ", "
        + SESSION_TIMEOUT
        + "="
        + Durations.format(sessionTimeout)
        + ", "
        + CONNECTION_TIMEOUT
        + "="
        + Durations.format(connectionTimeout)
        + ", "
        + AUTH_USER
        + "="
        + authUser
        + ", "
        + AUTH_PASSWORD
        + "="
        + (authPassword == null ? "null" : "******")
        + "}";
  }
}
