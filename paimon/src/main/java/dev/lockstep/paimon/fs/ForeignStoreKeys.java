package dev.lockstep.paimon.fs;

import dev.lockstep.options.OptionSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops the Hadoop file-system keys a Paimon catalog carries for {@code paimon-s3} / {@code
 * paimon-oss} that Lockstep's store does not read.
 *
 * <p>Lockstep's stores refuse an unknown key inside their own namespace ({@code s3.}, {@code
 * fs.oss.}), so that a typo is not silently ignored. A Paimon catalog, however, hands every catalog
 * option to the FileIO, and a user switching from {@code paimon-s3} keeps S3A settings such as
 * {@code s3.fast.upload} that mean something only to Hadoop. Those are removed here, before the
 * store sees them, and each is named once per JVM in a warning, so the user learns that it has no
 * effect; the keys Lockstep reads (after {@link PaimonS3Options}' translation) pass unchanged.
 */
final class ForeignStoreKeys {

  private static final Logger LOG = LoggerFactory.getLogger(ForeignStoreKeys.class);
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private ForeignStoreKeys() {}

  /** {@code options} without the keys in {@code declared}'s namespaces that it does not read. */
  static Map<String, String> withoutForeignKeys(OptionSet declared, Map<String, String> options) {
    Map<String, String> kept = new java.util.HashMap<>(options);
    Set<String> dropped = new TreeSet<>();
    for (String key : options.keySet()) {
      if (declared.namespaceOf(key) != null && !declared.knows(key)) {
        kept.remove(key);
        dropped.add(key);
      }
    }
    for (String key : dropped) {
      if (WARNED.add(key)) {
        LOG.warn(
            "Catalog option '{}' is not read by Lockstep's {} and has no effect (it is a"
                + " Hadoop file-system setting of paimon-s3 / paimon-oss); see {} for the options it"
                + " reads.",
            key,
            declared.owner(),
            declared.documentation());
      }
    }
    return kept;
  }
}
