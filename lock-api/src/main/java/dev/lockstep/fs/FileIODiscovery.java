package dev.lockstep.fs;

import java.io.IOException;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Finds the {@link FileIOLoader} for a path's scheme through {@link ServiceLoader}.
 *
 * <p>A scheme no loader names can be served by another scheme's loader with the option {@value
 * #SCHEME_ALIAS_PREFIX}{@code <scheme>=<served-scheme>}: for example {@code
 * fs.scheme-alias.jfs=hdfs} opens {@code jfs://} paths with the Hadoop loader, which then uses the
 * Hadoop client configured for {@code jfs}. The loader decides what that store may declare; the
 * alias never adds a capability by itself.
 */
public final class FileIODiscovery {

  /** Option prefix mapping an unserved scheme to the loader of a served one. */
  public static final String SCHEME_ALIAS_PREFIX = "fs.scheme-alias.";

  private FileIODiscovery() {}

  /** Opens the store for {@code path} with the context class loader (or this class's loader). */
  public static FileIO open(Path path, Map<String, String> options) throws IOException {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    return open(path, options, loader != null ? loader : FileIODiscovery.class.getClassLoader());
  }

  /**
   * Opens the store for {@code path}. A bare path is served by the {@code file} scheme.
   *
   * @throws IllegalArgumentException when no loader serves the scheme; the message lists the
   *     schemes found and the jars that serve the usual ones
   */
  public static FileIO open(Path path, Map<String, String> options, ClassLoader classLoader)
      throws IOException {
    String scheme = path.scheme() == null ? "file" : path.scheme();
    Map<String, FileIOLoader> loaders = loaders(classLoader);
    FileIOLoader loader = loaders.get(scheme);
    String alias = options.get(SCHEME_ALIAS_PREFIX + scheme);
    if (loader == null && alias != null) {
      loader = loaders.get(alias.trim().toLowerCase(java.util.Locale.ROOT));
      if (loader == null) {
        throw new IllegalArgumentException(
            "Option '"
                + SCHEME_ALIAS_PREFIX
                + scheme
                + "="
                + alias
                + "' names a scheme no store serves. Schemes found on the classpath: "
                + loaders.keySet()
                + ".");
      }
    }
    if (loader == null) {
      throw new IllegalArgumentException(
          "No store serves the scheme '"
              + scheme
              + "' of "
              + path
              + ". Schemes found on the classpath: "
              + loaders.keySet()
              + ". Add the jar that serves it (lockstep-fs-s3 for s3/s3a, lockstep-fs-oss for oss,"
              + " lockstep-fs-hdfs for hdfs/viewfs), or serve it with another scheme's store through '"
              + SCHEME_ALIAS_PREFIX
              + scheme
              + "=<scheme>'.");
    }
    return loader.load(path, options);
  }

  /** Every scheme found, with its loader. */
  public static Map<String, FileIOLoader> loaders(ClassLoader classLoader) {
    Map<String, FileIOLoader> byScheme = new TreeMap<>();
    for (FileIOLoader loader : ServiceLoader.load(FileIOLoader.class, classLoader)) {
      for (String scheme : loader.schemes()) {
        byScheme.putIfAbsent(scheme.toLowerCase(java.util.Locale.ROOT), loader);
      }
    }
    return byScheme;
  }
}
