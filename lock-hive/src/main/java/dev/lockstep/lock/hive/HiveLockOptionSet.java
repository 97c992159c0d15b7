package dev.lockstep.lock.hive;

import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.ConfigOption.Requirement;
import dev.lockstep.options.OptionSet;
import java.time.Duration;

/**
 * The declared options of the Hive lock. Kept apart from {@link HiveLockOptions}, which refers to
 * Hadoop's {@code Configuration}: the factory lists its options even where Hive and Hadoop are
 * missing from the class path.
 */
final class HiveLockOptionSet {

  private HiveLockOptionSet() {}

  static final ConfigOption<String> CATALOG_URI =
      ConfigOption.key(HiveLockOptions.CATALOG_URI)
          .stringType()
          .noDefaultValue()
          .withDescription(
              "the catalog's metastore address(es): `thrift://host:port`, several separated"
                  + " by commas");
  static final ConfigOption<String> URI =
      ConfigOption.key(HiveLockOptions.URI)
          .stringType()
          .noDefaultValue()
          .withDefaultText("`uri`")
          .withDescription("metastore address(es) for the lock only; overrides `uri`");
  static final ConfigOption<String> CONF_DIR =
      ConfigOption.key(HiveLockOptions.CONF_DIR)
          .stringType()
          .noDefaultValue()
          .withDescription(
              "a directory with `hive-site.xml` and/or `metastore-site.xml`, read after the"
                  + " ones the metastore client finds itself (class path, `HIVE_CONF_DIR`,"
                  + " `METASTORE_CONF_DIR`, `HIVE_HOME/conf`)");
  static final ConfigOption<Duration> HEARTBEAT_INTERVAL =
      ConfigOption.key(HiveLockOptions.HEARTBEAT_INTERVAL)
          .durationType()
          .noDefaultValue()
          .withDefaultText("a quarter of `metastore.txn.timeout`")
          .withDescription("how often a held lock is heartbeated; at most half the timeout");
  static final ConfigOption<String> DEFAULT_DATABASE =
      ConfigOption.key(HiveLockOptions.DEFAULT_DATABASE)
          .stringType()
          .defaultValue(HiveLockOptions.DEFAULT_DATABASE_DEFAULT)
          .require(d -> !d.isBlank(), "not blank")
          .withDescription("database of lock keys without a dot");
  static final ConfigOption<Integer> POOL_SIZE =
      ConfigOption.key(HiveLockOptions.POOL_SIZE)
          .intType()
          .defaultValue(HiveLockOptions.POOL_SIZE_DEFAULT)
          .require(Requirement.atLeast(1))
          .withDescription("metastore connections kept open per lock service");

  /**
   * Every key under {@code lock.hive.}, the catalog's {@code uri}; {@code hive.*} and {@code
   * metastore.*} pass through to the metastore client.
   */
  static final OptionSet OPTIONS =
      OptionSet.of("the Hive lock", "lock-hive/README.md")
          .namespace("lock.hive.")
          .option(CATALOG_URI, URI, CONF_DIR, HEARTBEAT_INTERVAL, DEFAULT_DATABASE, POOL_SIZE)
          .passThrough("hive.", "metastore.")
          .build();
}
