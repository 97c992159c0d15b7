package dev.lockstep.fs.hdfs;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIOLoader;
import dev.lockstep.fs.Path;
import dev.lockstep.options.OptionSet;
import dev.lockstep.options.Options;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code hdfs://} and {@code viewfs://} with {@link HdfsFileIO}. Any other Hadoop-compatible
 * scheme is served through the option {@code fs.scheme-alias.<scheme>=hdfs} (see {@link
 * dev.lockstep.fs.FileIODiscovery}) with its Hadoop client configured by {@code hadoop.*} options;
 * it declares atomic rename only with {@link HadoopOptions#ATOMIC_RENAME}{@code =true}.
 *
 * <p>Configuration, in order (later wins): Hadoop defaults; {@code core-site.xml} and {@code
 * hdfs-site.xml} from {@code fs.hdfs.conf-dir} or {@code HADOOP_CONF_DIR}; every {@code hadoop.*}
 * option with the prefix removed. Kerberos: set {@code
 * hadoop.hadoop.security.authentication=kerberos} (or have it in core-site.xml) and {@code
 * fs.hdfs.kerberos.principal} with {@code fs.hdfs.kerberos.keytab}; without a keytab the current
 * login (ticket cache) is used.
 *
 * <p>Each store owns its own {@link FileSystem} instance ({@code FileSystem.newInstance}), closed
 * with the store, so closing one table's store never closes another's.
 */
public final class HadoopFileIOLoader implements FileIOLoader {

  private static final Logger LOG = LoggerFactory.getLogger(HadoopFileIOLoader.class);
  private static final Set<String> ATOMIC_RENAME_SCHEMES = Set.of("hdfs", "viewfs");

  @Override
  public Set<String> schemes() {
    return ATOMIC_RENAME_SCHEMES;
  }

  @Override
  public OptionSet options() {
    return HadoopOptions.OPTIONS;
  }

  @Override
  public FileIO load(Path root, Map<String, String> options) throws IOException {
    HadoopOptions.OPTIONS.checkNamespace(options);
    Options o = Options.of(options);
    String scheme = root.scheme();
    if (scheme == null) {
      throw new IllegalArgumentException(
          "A Hadoop store needs a URI with a scheme, such as"
              + " hdfs://namenode:8020/warehouse, not "
              + root);
    }
    Configuration conf = configuration(o);
    login(o, conf);
    URI uri = URI.create(scheme + "://" + root.authority() + "/");
    FileSystem fileSystem = FileSystem.newInstance(uri, conf);
    String description = "HadoopFileIO(" + uri + ")";
    boolean atomicRename =
        ATOMIC_RENAME_SCHEMES.contains(scheme) || o.get(HadoopOptions.ATOMIC_RENAME_OPTION);
    if (!atomicRename) {
      return new HadoopFileIO(fileSystem, description);
    }
    FileContext fileContext =
        ATOMIC_RENAME_SCHEMES.contains(scheme) ? FileContext.getFileContext(uri, conf) : null;
    return new HdfsFileIO(fileSystem, fileContext, description);
  }

  static Configuration configuration(Options options) {
    Configuration conf = new Configuration();
    String confDir = options.get(HadoopOptions.CONF_DIR_OPTION, System.getenv("HADOOP_CONF_DIR"));
    if (confDir != null && !confDir.isBlank()) {
      File dir = new File(confDir);
      if (!dir.isDirectory()) {
        throw new IllegalArgumentException(
            "Hadoop configuration directory '"
                + confDir
                + "' (option '"
                + HadoopOptions.CONF_DIR
                + "' or HADOOP_CONF_DIR) does not exist.");
      }
      for (String name : new String[] {"core-site.xml", "hdfs-site.xml"}) {
        File file = new File(dir, name);
        if (file.isFile()) {
          conf.addResource(new org.apache.hadoop.fs.Path(file.toURI()));
        }
      }
    }
    options.withPrefix(HadoopOptions.HADOOP_PREFIX).forEach(conf::set);
    return conf;
  }

  private static void login(Options options, Configuration conf) throws IOException {
    String principal = options.get(HadoopOptions.KERBEROS_PRINCIPAL_OPTION);
    String keytab = options.get(HadoopOptions.KERBEROS_KEYTAB_OPTION);
    if (principal == null && keytab == null) {
      return;
    }
    if (principal == null || keytab == null) {
      throw new IllegalArgumentException(
          "Kerberos login needs both '"
              + HadoopOptions.KERBEROS_PRINCIPAL
              + "' and '"
              + HadoopOptions.KERBEROS_KEYTAB
              + "'.");
    }
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation.loginUserFromKeytab(principal, keytab);
    LOG.info("Logged in to Kerberos as {}", principal);
  }
}
