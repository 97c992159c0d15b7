package dev.lockstep.lock.zookeeper;

import dev.lockstep.lock.LockOptions;
import dev.lockstep.options.Durations;
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
 * @param sessionTimeout {@value #SESSION_TIMEOUT}: asked of the server (which may clamp it to {@code
 *     [2, 20] x tickTime}); a dead holder's lock is freed after the negotiated value
 * @param connectionTimeout {@value #CONNECTION_TIMEOUT}: how long to wait for a connection before an
 *     operation fails, and how long {@code acquire} waits to reach ZooKeeper at all
 * @param retryBaseSleep {@value #RETRY_BASE_SLEEP}: first wait of the exponential retry of an operation
 * @param retryMaxSleep {@value #RETRY_MAX_SLEEP}: longest wait between retries
 * @param retryMaxAttempts {@value #RETRY_MAX_ATTEMPTS}: retries of one operation after a connection loss
 * @param authUser {@value #AUTH_USER}: digest authentication user, or {@code null}
 * @param authPassword {@value #AUTH_PASSWORD} (secret, never logged): digest password, or {@code null}
 * @param acl {@value #ACL}: the ACL of lock znodes
 * @param lock the generic lock options ({@code lock-acquire-timeout}, {@code lock-check-max-sleep})
 */
public record ZooKeeperLockOptions(String connectString, String basePath, Duration sessionTimeout,
    Duration connectionTimeout, Duration retryBaseSleep, Duration retryMaxSleep, int retryMaxAttempts,
    String authUser, String authPassword, List<ACL> acl, LockOptions lock) {

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

  public ZooKeeperLockOptions {
    positive(SESSION_TIMEOUT, sessionTimeout);
    positive(CONNECTION_TIMEOUT, connectionTimeout);
    positive(RETRY_BASE_SLEEP, retryBaseSleep);
    positive(RETRY_MAX_SLEEP, retryMaxSleep);
    if (retryMaxAttempts < 0 || retryMaxAttempts > 29) {
      throw new IllegalArgumentException("Option '" + RETRY_MAX_ATTEMPTS + "' must be between 0 and"
          + " 29: " + retryMaxAttempts);
    }
    if ((authUser == null) != (authPassword == null)) {
      throw new IllegalArgumentException("Options '" + AUTH_USER + "' and '" + AUTH_PASSWORD
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
   * @throws IllegalArgumentException naming the key and the fix when an option is missing or invalid
   */
  public static ZooKeeperLockOptions from(Map<String, String> map) {
    Options options = Options.of(map);
    String connectString = options.get(CONNECT_STRING);
    if (connectString == null || connectString.isBlank()) {
      throw new IllegalArgumentException("Option '" + CONNECT_STRING + "' is required for"
          + " 'lock.type=zookeeper': the ZooKeeper servers as host:port[,host:port...], for example"
          + " 'zk1:2181,zk2:2181,zk3:2181'.");
    }
    String basePath = normalizeBasePath(options.get(BASE_PATH, BASE_PATH_DEFAULT));
    String user = blankToNull(options.get(AUTH_USER));
    String password = options.get(AUTH_PASSWORD);
    password = password == null || password.isEmpty() ? null : password;
    String aclText = options.get(ACL, user == null ? ACL_OPEN : ACL_CREATOR);
    return new ZooKeeperLockOptions(connectString.trim(), basePath,
        options.getDuration(SESSION_TIMEOUT, SESSION_TIMEOUT_DEFAULT),
        options.getDuration(CONNECTION_TIMEOUT, CONNECTION_TIMEOUT_DEFAULT),
        options.getDuration(RETRY_BASE_SLEEP, RETRY_BASE_SLEEP_DEFAULT),
        options.getDuration(RETRY_MAX_SLEEP, RETRY_MAX_SLEEP_DEFAULT),
        options.getInt(RETRY_MAX_ATTEMPTS, RETRY_MAX_ATTEMPTS_DEFAULT),
        user, password, parseAcl(aclText, user != null), LockOptions.from(options));
  }

  /** The digest authentication bytes ({@code user:password}), or {@code null}. Secret. */
  byte[] authBytes() {
    return authUser == null ? null : (authUser + ":" + authPassword).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses {@value #ACL}: {@code open} (anyone may do anything), {@code creator} (only the
   * authenticated identity that created a node; needs {@value #AUTH_USER}), or a comma-separated list
   * of {@code scheme:id:perms} entries with perms from {@code cdrwa}, for example {@code
   * digest:lockstep:HASH=:cdrwa,world:anyone:r}.
   */
  static List<ACL> parseAcl(String text, boolean authenticated) {
    String value = text.trim();
    if (value.equalsIgnoreCase(ACL_OPEN)) {
      return ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }
    if (value.equalsIgnoreCase(ACL_CREATOR)) {
      if (!authenticated) {
        throw new IllegalArgumentException("Option '" + ACL + "=creator' needs digest authentication:"
            + " set '" + AUTH_USER + "' and '" + AUTH_PASSWORD + "', or use '" + ACL + "=open'.");
      }
      return ZooDefs.Ids.CREATOR_ALL_ACL;
    }
    List<ACL> acl = new ArrayList<>();
    for (String entry : value.split(",")) {
      String trimmed = entry.trim();
      int first = trimmed.indexOf(':');
      int last = trimmed.lastIndexOf(':');
      if (first <= 0 || last == first || last == trimmed.length() - 1) {
        throw new IllegalArgumentException("Option '" + ACL + "': cannot read '" + trimmed
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
        default -> throw new IllegalArgumentException("Option '" + ACL + "': '" + entry
            + "' has permission '" + c + "'; use letters from cdrwa.");
      }
    }
    return perms;
  }

  private static String normalizeBasePath(String path) {
    String trimmed = path.trim();
    if (!trimmed.startsWith("/") || trimmed.contains("//") || trimmed.equals("/")) {
      throw new IllegalArgumentException("Option '" + BASE_PATH + "' must be an absolute znode path"
          + " below the root, for example '" + BASE_PATH_DEFAULT + "': '" + path + "'.");
    }
    return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static void positive(String key, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("Option '" + key + "' must be positive: "
          + Durations.format(value));
    }
  }

  /** Never prints the password. */
  @Override
  public String toString() {
    return "ZooKeeperLockOptions{" + CONNECT_STRING + "=" + connectString + ", " + BASE_PATH + "="
        + basePath + ", " + SESSION_TIMEOUT + "=" + Durations.format(sessionTimeout) + ", "
        + CONNECTION_TIMEOUT + "=" + Durations.format(connectionTimeout) + ", " + AUTH_USER + "="
        + authUser + ", " + AUTH_PASSWORD + "=" + (authPassword == null ? "null" : "******") + "}";
  }
}
