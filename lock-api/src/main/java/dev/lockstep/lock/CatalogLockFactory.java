package dev.lockstep.lock;

import java.io.IOException;
import java.util.Map;

/**
 * Service-provider interface for a lock backend, registered in {@code
 * META-INF/services/dev.lockstep.lock.CatalogLockFactory} and chosen by {@code lock.type}.
 */
public interface CatalogLockFactory {

  /** The value of {@code lock.type} that selects this backend, for example {@code zookeeper}. */
  String identifier();

  /**
   * Builds the lock service from catalog options. Each backend reads its own {@code lock.<identifier>.*}
   * keys and the generic {@link LockOptions} keys.
   *
   * @throws IllegalArgumentException when an option is missing or invalid, naming the key and the fix
   * @throws IOException when the service cannot be set up
   */
  LockService create(Map<String, String> options) throws IOException;
}
