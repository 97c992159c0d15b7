package dev.lockstep.fs.hdfs;

/**
 * Options of the Hadoop stores, as catalog option keys.
 *
 * <p>Every option {@code hadoop.<key>=<value>} is set as {@code <key>=<value>} in the Hadoop {@code
 * Configuration}, after {@code core-site.xml} and {@code hdfs-site.xml} from {@link #CONF_DIR} (or the
 * {@code HADOOP_CONF_DIR} environment variable) are loaded, so options win over files.
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
}
