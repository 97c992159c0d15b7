package dev.lockstep.fs.hdfs;

import dev.lockstep.options.ConfigOption;
import dev.lockstep.options.OptionSet;

/**
 * Options of the Hadoop stores, as catalog option keys.
 *
 * <p>Every option {@code hadoop.<key>=<value>} is set as {@code <key>=<value>} in the Hadoop {@code
 * Configuration}, after {@code core-site.xml} and {@code hdfs-site.xml} from {@link #CONF_DIR} (or
 * the {@code HADOOP_CONF_DIR} environment variable) are loaded, so options win over files.
 */
public final class HadoopOptions {

  private HadoopOptions() {}

  /** Prefix of options copied into the Hadoop configuration with the prefix removed. */
  public static final String HADOOP_PREFIX = "hadoop.";

  /** Directory holding core-site.xml and hdfs-site.xml; default: the HADOOP_CONF_DIR variable. */
  public static final String CONF_DIR = "fs.hdfs.conf-dir";

  /** Kerberos principal to log in with a keytab, for example {@code lockstep/_HOST@EXAMPLE.COM}. */
  public static final String KERBEROS_PRINCIPAL = "fs.hdfs.kerberos.principal";

  /** Keytab file for {@link #KERBEROS_PRINCIPAL}. */
  public static final String KERBEROS_KEYTAB = "fs.hdfs.kerberos.keytab";

  /**
   * Whether a scheme other than {@code hdfs} and {@code viewfs} served through Hadoop has a rename
   * that never replaces and is atomic. Default false: such a store then declares no atomic rename,
   * and commits need a lock. Set true only for a filesystem that documents it (for example one that
   * implements HDFS rename semantics); the conformance kit checks the claim. Losing this guarantee
   * can lose commits.
   */
  public static final String ATOMIC_RENAME = "fs.hdfs.atomic-rename";

  static final ConfigOption<String> CONF_DIR_OPTION =
      ConfigOption.key(CONF_DIR)
          .stringType()
          .noDefaultValue()
          .withDefaultText("`$HADOOP_CONF_DIR`")
          .withDescription("directory with `core-site.xml` and `hdfs-site.xml`");
  static final ConfigOption<String> KERBEROS_PRINCIPAL_OPTION =
      ConfigOption.key(KERBEROS_PRINCIPAL)
          .stringType()
          .noDefaultValue()
          .withDescription("log in from a keytab as this principal");
  static final ConfigOption<String> KERBEROS_KEYTAB_OPTION =
      ConfigOption.key(KERBEROS_KEYTAB)
          .stringType()
          .noDefaultValue()
          .withDescription("keytab file for the principal");
  static final ConfigOption<Boolean> ATOMIC_RENAME_OPTION =
      ConfigOption.key(ATOMIC_RENAME)
          .booleanType()
          .defaultValue(false)
          .withDescription("for schemes other than hdfs/viewfs: declare atomic rename (see above)");

  /**
   * What the Hadoop stores read: every key under {@code fs.hdfs.}; {@code hadoop.*} passes through.
   */
  public static final OptionSet OPTIONS =
      OptionSet.of("the Hadoop store", "fs-hdfs/README.md")
          .namespace("fs.hdfs.")
          .option(
              CONF_DIR_OPTION,
              KERBEROS_PRINCIPAL_OPTION,
              KERBEROS_KEYTAB_OPTION,
              ATOMIC_RENAME_OPTION)
          .passThrough(HADOOP_PREFIX)
          .build();
}
