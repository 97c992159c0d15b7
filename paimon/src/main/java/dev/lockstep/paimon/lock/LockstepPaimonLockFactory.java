package dev.lockstep.paimon.lock;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.paimon.catalog.CatalogLock;
import org.apache.paimon.catalog.CatalogLockContext;
import org.apache.paimon.catalog.CatalogLockFactory;

/**
 * A Paimon {@link CatalogLockFactory} over a Lockstep lock backend (Paimon 1.3 API).
 *
 * <p>Reads its configuration only from {@link CatalogLockContext#options()} and never casts the
 * context, so it works in every Paimon catalog, the filesystem metastore included. It holds no
 * state: Paimon Java-serializes it into the job graph and calls {@link #createLock} once per commit
 * object; the clients behind the locks are shared per configuration in the JVM.
 */
public abstract class LockstepPaimonLockFactory implements CatalogLockFactory {

  private static final long serialVersionUID = 1L;

  /** The Lockstep backend this factory serves. */
  protected abstract dev.lockstep.lock.CatalogLockFactory backend();

  /** The option(s) that say where the lock service is, quoted, for error messages. */
  protected abstract String connectionOption();

  /**
   * @throws IllegalArgumentException when an option is missing or invalid, naming the key and fix
   * @throws UncheckedIOException when the backend cannot be set up
   */
  @Override
  public CatalogLock createLock(CatalogLockContext context) {
    try {
      return new PaimonLeaseLock(
          LeasedRunner.open(
              identifier(), connectionOption(), backend(), context.options().toMap()));
    } catch (IOException e) {
      throw new UncheckedIOException("lock.type=" + identifier() + ": " + e.getMessage(), e);
    }
  }
}
