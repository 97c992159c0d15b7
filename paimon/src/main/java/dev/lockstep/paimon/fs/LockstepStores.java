package dev.lockstep.paimon.fs;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIOLoader;
import dev.lockstep.fs.Path;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JVM's Lockstep stores behind the Paimon FileIOs, one per scheme, bucket and store options.
 *
 * <p>Paimon builds a FileIO per catalog and Java-serializes it into every task; each copy would
 * otherwise open its own HTTP connection pool (and, with {@code s3.conditional-writes=auto} on a
 * non-AWS endpoint, probe the bucket again). Like {@code paimon-s3}'s own S3A cache, the stores
 * live as long as the JVM: Paimon does not close its FileIOs reliably.
 */
final class LockstepStores {

  private static final Map<String, FileIO> STORES = new ConcurrentHashMap<>();

  private LockstepStores() {}

  /** The store serving {@code path}'s bucket with these options, opened on first use. */
  static FileIO forPath(StoreKind kind, Path path, Map<String, String> options) throws IOException {
    String key =
        kind + "|" + path.scheme() + "://" + path.authority() + "|" + storeOptions(kind, options);
    FileIO store = STORES.get(key);
    if (store != null) {
      return store;
    }
    synchronized (STORES) {
      store = STORES.get(key);
      if (store == null) {
        FileIOLoader loader = kind.loader();
        store =
            loader.load(
                Path.of(path.scheme() + "://" + path.authority()), kind.lockstepOptions(options));
        STORES.put(key, store);
      }
      return store;
    }
  }

  private static String storeOptions(StoreKind kind, Map<String, String> options) {
    Map<String, String> relevant = new TreeMap<>();
    options.forEach(
        (key, value) -> {
          if (kind.isStoreOption(key)) {
            relevant.put(key, value);
          }
        });
    return relevant.toString();
  }
}
