package dev.lockstep.paimon.lock;

import dev.lockstep.options.EditDistance;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.paimon.catalog.AbstractCatalog;
import org.apache.paimon.catalog.CatalogLockFactory;
import org.apache.paimon.factories.FactoryUtil;
import org.apache.paimon.options.CatalogOptions;
import org.apache.paimon.options.Options;

/**
 * A {@code lock.type} that names no lock factory, told in one line (Paimon 1.3 API).
 *
 * <p>Paimon looks the lock factory up at the first table operation and, for an identifier it cannot
 * find, throws its own multi-line {@code FactoryException} ("Could not find any factory for
 * identifier ..."), which Lockstep cannot reword: no Lockstep code runs for an identifier that no
 * factory claims. Lockstep's FileIO, though, is configured with the catalog options when the
 * catalog is created, before that lookup; it calls {@link #check} there, so that a catalog on
 * Lockstep's FileIO with a misspelt {@code lock.type} fails at once with one line naming what to
 * set.
 *
 * <p>The check asks Paimon's own factory discovery (the class loader Paimon's catalogs use), and
 * only when the lock is enabled as Paimon's catalog decides it ({@code lock.enabled}, by default
 * true on an object store, which every Lockstep FileIO is). So it refuses exactly the
 * configurations that Paimon's lookup would refuse later.
 */
public final class LockTypeCheck {

  private static final List<String> LOCKSTEP_IDENTIFIERS =
      List.of(
          LockstepZooKeeperLockFactory.IDENTIFIER,
          LockstepJdbcLockFactory.IDENTIFIER,
          LockstepHiveLockFactory.IDENTIFIER);

  private LockTypeCheck() {}

  /**
   * @param options the catalog options
   * @param objectStore whether the FileIO is an object store (Paimon's default for {@code
   *     lock.enabled})
   * @throws IllegalArgumentException when the lock is enabled and {@code lock.type} names no lock
   *     factory that Paimon can find, with one line naming the value and the identifiers to use
   */
  public static void check(Options options, boolean objectStore) {
    if (!options.getOptional(CatalogOptions.LOCK_ENABLED).orElse(objectStore)) {
      return;
    }
    String type = options.get(CatalogOptions.LOCK_TYPE);
    if (type == null) {
      return;
    }
    List<String> found =
        FactoryUtil.discoverIdentifiers(
            AbstractCatalog.class.getClassLoader(), CatalogLockFactory.class);
    if (found.contains(type)) {
      return;
    }
    List<String> others = new ArrayList<>(found);
    others.removeAll(LOCKSTEP_IDENTIFIERS);
    StringBuilder message =
        new StringBuilder("'lock.type' = '")
            .append(type)
            .append("' names no lock factory on Paimon's class path: set 'lock.type' to ")
            .append("'lockstep-zookeeper', 'lockstep-jdbc' or 'lockstep-hive' (Lockstep's locks");
    suggestion(type).ifPresent(s -> message.append("; did you mean '").append(s).append("'?"));
    message.append(')');
    if (!others.isEmpty()) {
      message.append(", or to another one found (").append(String.join(", ", others)).append(')');
    }
    message.append(
        ", or leave it out: with Lockstep's s3/oss FileIO on a store with conditional"
            + " writes, no lock is needed.");
    if (!found.containsAll(LOCKSTEP_IDENTIFIERS)) {
      message.append(
          " Lockstep's lock factories are not on Paimon's class path: put the"
              + " lockstep-paimon jar next to the Paimon jar.");
    }
    throw new IllegalArgumentException(message.toString());
  }

  /** The Lockstep identifier a misspelt one most likely meant. */
  static Optional<String> suggestion(String type) {
    String t = type.toLowerCase(Locale.ROOT).trim();
    if (t.contains("zk") || t.contains("zoo") || t.contains("keeper") || t.contains("curator")) {
      return Optional.of(LockstepZooKeeperLockFactory.IDENTIFIER);
    }
    if (t.contains("jdbc") || t.contains("sql") || t.contains("maria") || t.contains("postgre")) {
      return Optional.of(LockstepJdbcLockFactory.IDENTIFIER);
    }
    if (t.contains("hive") || t.contains("hms") || t.contains("metastore")) {
      return Optional.of(LockstepHiveLockFactory.IDENTIFIER);
    }
    return EditDistance.nearest(t, LOCKSTEP_IDENTIFIERS, 3);
  }
}
