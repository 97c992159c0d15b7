package dev.lockstep.lock;

import dev.lockstep.options.OptionsProvider;
import java.io.IOException;
import java.util.Map;

/**
 * Service-provider interface for a lock backend, registered in {@code
 * META-INF/services/dev.lockstep.lock.CatalogLockFactory} and chosen by {@code lock.type}.
 *
 * <p>{@link #options()} declares the keys the backend reads and its namespace ({@code
 * lock.<identifier>.}): {@link #create} refuses an unknown key inside that namespace, with the
 * nearest known key, and ignores every other key (Paimon hands a lock factory all catalog options).
 */
public interface CatalogLockFactory extends OptionsProvider {

  /** The value of {@code lock.type} that selects this backend, for example {@code zookeeper}. */
  String identifier();

  /**
   * Builds the lock service from catalog options. Each backend reads its own {@code
   * lock.<identifier>.*} keys and the generic {@link LockOptions} keys.
   *
   * @throws IllegalArgumentException when an option is missing or invalid, naming the key and the
   *     fix ({@link dev.lockstep.options.UnknownOptionException} for an unknown key in its
   *     namespace)
   * @throws IOException when the service cannot be set up
   */
  LockService create(Map<String, String> options) throws IOException;
}
