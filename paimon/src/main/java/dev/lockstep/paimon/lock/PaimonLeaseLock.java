package dev.lockstep.paimon.lock;

import java.io.IOException;
import java.util.concurrent.Callable;
import org.apache.paimon.catalog.CatalogLock;

/** Paimon's {@link CatalogLock} (1.3 API) over a {@link LeasedRunner}. */
final class PaimonLeaseLock implements CatalogLock {

  private final LeasedRunner runner;

  PaimonLeaseLock(LeasedRunner runner) {
    this.runner = runner;
  }

  @Override
  public <T> T runWithLock(String database, String table, Callable<T> callable) throws Exception {
    return runner.run(database, table, callable);
  }

  @Override
  public void close() throws IOException {
    runner.close();
  }
}
