package dev.lockstep.engine;

import dev.lockstep.lock.CatalogLockFactory;
import dev.lockstep.lock.LockService;
import dev.lockstep.testing.ForwardingLockService;
import dev.lockstep.testing.PausingLockService;
import java.util.Map;

/**
 * {@code lock.type=engine-pausing-in-jvm}, for the engine's tests only: views of {@link
 * SharedInJvmLockFactory#SHARED} through one {@link PausingLockService}, so that a test can pause a
 * table's committer right after a lease check ({@link #PAUSING}{@code .pauseAfterCheck}). Closing a
 * view closes nothing.
 */
public final class PausingInJvmLockFactory implements CatalogLockFactory {

  public static final String IDENTIFIER = "engine-pausing-in-jvm";
  public static final PausingLockService PAUSING =
      new PausingLockService(SharedInJvmLockFactory.SHARED);

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  public LockService create(Map<String, String> options) {
    return ForwardingLockService.unclosable(PAUSING);
  }
}
