package dev.lockstep.lock.hive;

import dev.lockstep.lock.LockOptions;
import dev.lockstep.options.Durations;
import dev.lockstep.options.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf.ConfVars;

/**
 * Options of the Hive Metastore lock, parsed once into the metastore client's configuration.
 *
 * <p>The configuration is layered, later layers winning:
 *
 * <ol>
 *   <li>{@code hive-site.xml} / {@code metastore-site.xml} found by the metastore client itself
 *       (class path, {@code HIVE_CONF_DIR}, {@code METASTORE_CONF_DIR}, {@code HIVE_HOME/conf});
 *   <li>{@code hive-site.xml} and {@code metastore-site.xml} in {@value #CONF_DIR}, when set;
 *   <li>every catalog option whose key starts with {@code hive.} or {@code metastore.}, unchanged;
 *   <li>the metastore addresses: {@value #URI}, else the catalog's {@value #CATALOG_URI}.
 * </ol>
 *
 * @param uris the metastore addresses, {@code thrift://host:port}, tried in the client's order
 * @param conf the metastore client configuration (a private copy; never shared with the caller)
 * @param lock the generic lock options ({@code lock-acquire-timeout}, {@code lock-check-max-sleep})
 * @param lockTimeout the metastore's lock timeout ({@code metastore.txn.timeout}): a lock not
 *     heartbeated for this long is removed by the metastore's housekeeper
 * @param housekeeperInterval how often the metastore's housekeeper removes timed-out locks ({@code
 *     metastore.acid.housekeeper.interval})
 * @param heartbeatInterval {@value #HEARTBEAT_INTERVAL}
 * @param defaultDatabase {@value #DEFAULT_DATABASE}
 * @param poolSize {@value #POOL_SIZE}
 */
public record HiveLockOptions(
    List<String> uris,
    Configuration conf,
    LockOptions lock,
    Duration lockTimeout,
    Duration housekeeperInterval,
    Duration heartbeatInterval,
    String defaultDatabase,
    int poolSize) {

  /**
   * The catalog's metastore address, as the seed texts configure it ({@code 'uri'='thrift://…'}).
   */
  public static final String CATALOG_URI = "uri";

  /** Metastore addresses for the lock only; overrides {@value #CATALOG_URI}. Comma-separated. */
  public static final String URI = "lock.hive.uri";

  /**
   * A directory holding {@code hive-site.xml}; default: the client's own search ({@code
   * HIVE_CONF_DIR}).
   */
  public static final String CONF_DIR = "lock.hive.conf-dir";

  /**
   * How often a held lock is heartbeated. Default: a quarter of the metastore's lock timeout; at
   * most half of it, or the metastore drops a live holder's lock after one lost heartbeat (and its
   * {@code ensureHeld()} fails).
   */
  public static final String HEARTBEAT_INTERVAL = "lock.hive.heartbeat-interval";

  /** The database of lock keys that name no database (a key without a dot). */
  public static final String DEFAULT_DATABASE = "lock.hive.default-database";

  public static final String DEFAULT_DATABASE_DEFAULT = "default";

  /** Metastore clients kept open (a client serves one call at a time). */
  public static final String POOL_SIZE = "lock.hive.pool-size";

  public static final int POOL_SIZE_DEFAULT = 3;

  public HiveLockOptions {
    uris = List.copyOf(uris);
    if (uris.isEmpty()) {
      throw new IllegalArgumentException(
          "The Hive lock needs the metastore address: set '"
              + CATALOG_URI
              + "' (or '"
              + URI
              + "') to thrift://host:9083.");
    }
    if (heartbeatInterval.isNegative()
        || heartbeatInterval.isZero()
        || heartbeatInterval.multipliedBy(2).compareTo(lockTimeout) > 0) {
      throw new IllegalArgumentException(
          "Option '"
              + HEARTBEAT_INTERVAL
              + "' is "
              + Durations.format(heartbeatInterval)
              + " but must be positive and at most half the"
              + " metastore's lock timeout 'metastore.txn.timeout' ("
              + Durations.format(lockTimeout)
              + "), or one lost heartbeat makes the metastore drop a held lock. Leave it unset for a"
              + " quarter of the timeout.");
    }
    HiveLockOptionSet.POOL_SIZE.check(poolSize);
  }

  /**
   * Parses catalog options.
   *
   * @throws IllegalArgumentException naming the option and the fix; an unknown {@code lock.hive.*}
   *     key is refused with the nearest known key
   */
  public static HiveLockOptions from(Map<String, String> options) {
    HiveLockOptionSet.OPTIONS.checkNamespace(options);
    Options o = Options.of(options);
    Configuration conf = MetastoreConf.newMetastoreConf();
    String confDir = o.get(HiveLockOptionSet.CONF_DIR);
    if (confDir != null && !confDir.isBlank()) {
      Path dir = Path.of(confDir.trim());
      Path hiveSite = dir.resolve("hive-site.xml");
      Path metastoreSite = dir.resolve("metastore-site.xml");
      if (!Files.isRegularFile(hiveSite) && !Files.isRegularFile(metastoreSite)) {
        throw new IllegalArgumentException(
            "Option '"
                + CONF_DIR
                + "' is '"
                + confDir
                + "', but it"
                + " holds neither hive-site.xml nor metastore-site.xml. Point it at the directory of the"
                + " metastore client configuration.");
      }
      for (Path site : List.of(hiveSite, metastoreSite)) {
        if (Files.isRegularFile(site)) {
          conf.addResource(new org.apache.hadoop.fs.Path(site.toUri()));
        }
      }
    }
    o.asMap()
        .forEach(
            (key, value) -> {
              if (key.startsWith("hive.") || key.startsWith("metastore.")) {
                conf.set(key, value);
              }
            });
    List<String> uris = parseUris(o, conf);
    MetastoreConf.setVar(conf, ConfVars.THRIFT_URIS, String.join(",", uris));

    Duration lockTimeout =
        Duration.ofMillis(
            MetastoreConf.getTimeVar(conf, ConfVars.TXN_TIMEOUT, TimeUnit.MILLISECONDS));
    if (lockTimeout.isNegative() || lockTimeout.isZero()) {
      throw new IllegalArgumentException(
          "'metastore.txn.timeout' must be positive: " + lockTimeout);
    }
    Duration housekeeper =
        Duration.ofMillis(
            MetastoreConf.getTimeVar(
                conf, ConfVars.ACID_HOUSEKEEPER_SERVICE_INTERVAL, TimeUnit.MILLISECONDS));
    Duration heartbeat = o.get(HiveLockOptionSet.HEARTBEAT_INTERVAL, lockTimeout.dividedBy(4));
    if (conf.get(ConfVars.CLIENT_SOCKET_TIMEOUT.getVarname()) == null
        && conf.get(ConfVars.CLIENT_SOCKET_TIMEOUT.getHiveName()) == null) {
      // A heartbeat stuck for the client's default 600 s would outlive the lock; half the lock
      // timeout (at least 20 s) bounds every call instead. The user can still set it.
      MetastoreConf.setTimeVar(
          conf,
          ConfVars.CLIENT_SOCKET_TIMEOUT,
          Math.max(20_000, lockTimeout.toMillis() / 2),
          TimeUnit.MILLISECONDS);
    }
    String database = o.get(HiveLockOptionSet.DEFAULT_DATABASE).trim().toLowerCase(Locale.ROOT);
    return new HiveLockOptions(
        uris,
        conf,
        LockOptions.from(o),
        lockTimeout,
        housekeeper,
        heartbeat,
        database,
        o.get(HiveLockOptionSet.POOL_SIZE));
  }

  private static List<String> parseUris(Options o, Configuration conf) {
    String source = URI;
    String text = o.get(URI);
    if (text == null || text.isBlank()) {
      source = CATALOG_URI;
      text = o.get(CATALOG_URI);
    }
    if (text == null || text.isBlank()) {
      source = "metastore.thrift.uris (hive-site.xml)";
      text = MetastoreConf.getVar(conf, ConfVars.THRIFT_URIS);
    }
    List<String> uris = new ArrayList<>();
    if (text == null) {
      return uris;
    }
    for (String part : text.split(",")) {
      String uri = part.trim();
      if (uri.isEmpty()) {
        continue;
      }
      java.net.URI parsed;
      try {
        parsed = java.net.URI.create(uri);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Option '"
                + source
                + "' holds '"
                + uri
                + "', which is not"
                + " a URI. Write thrift://host:port, several separated by commas.",
            e);
      }
      if (!"thrift".equalsIgnoreCase(parsed.getScheme())
          || parsed.getHost() == null
          || parsed.getPort() < 0) {
        throw new IllegalArgumentException(
            "Option '"
                + source
                + "' holds '"
                + uri
                + "', but the Hive"
                + " lock needs a metastore address thrift://host:port (for example"
                + " thrift://metastore:9083), several separated by commas.");
      }
      uris.add(uri);
    }
    return uris;
  }

  /** How long after a holder dies its lock stays: the lock timeout plus one housekeeper period. */
  public Duration holderDeathBound() {
    return lockTimeout.plus(housekeeperInterval);
  }

  @Override
  public String toString() {
    return "HiveLockOptions{uris="
        + uris
        + ", lockTimeout="
        + Durations.format(lockTimeout)
        + ", heartbeatInterval="
        + Durations.format(heartbeatInterval)
        + ", defaultDatabase="
        + defaultDatabase
        + ", poolSize="
        + poolSize
        + "}";
  }
}
