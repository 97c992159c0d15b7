package dev.lockstep.lock.hive;

import dev.lockstep.lock.CatalogLockFactory;
import dev.lockstep.lock.LockService;
import dev.lockstep.options.OptionSet;
import java.util.Map;

/**
 * {@code lock.type=hive}: table locks in the Hive Metastore named by the catalog's {@code uri}.
 *
 * <p>The metastore client and Hadoop are not bundled (an engine with a Hive catalog has them); this
 * class refers to neither, so it loads and lists its identifier even where they are missing, and
 * {@link #create} then says which jars to add.
 */
public final class HiveLockFactory implements CatalogLockFactory {

  public static final String IDENTIFIER = "hive";

  private static final String[][] REQUIRED_CLASSES = {
    {
      "org.apache.hadoop.hive.metastore.HiveMetaStoreClient",
      "org.apache.hive:hive-standalone-metastore-common (or the engine's Hive connector)"
    },
    {
      "org.apache.hadoop.conf.Configuration",
      "org.apache.hadoop:hadoop-client-api and hadoop-client-runtime (or hadoop-common)"
    },
  };

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  public OptionSet options() {
    return HiveLockOptionSet.OPTIONS;
  }

  /**
   * Parses the options ({@link HiveLockOptions}) and opens the service; connects on first use.
   *
   * @throws IllegalArgumentException when an option is missing or invalid
   * @throws IllegalStateException when the metastore client or Hadoop is not on the class path
   */
  @Override
  public LockService create(Map<String, String> options) {
    ClassLoader loader = HiveLockFactory.class.getClassLoader();
    for (String[] required : REQUIRED_CLASSES) {
      try {
        Class.forName(required[0], false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw new IllegalStateException(
            "lock.type=hive needs the Hive Metastore client and Hadoop"
                + " on the class path, and "
                + required[0]
                + " is missing. Add "
                + required[1]
                + ". See lockstep-lock-hive's README for the list.",
            e);
      }
    }
    return HiveLockService.open(HiveLockOptions.from(options));
  }
}
