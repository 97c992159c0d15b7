package dev.lockstep.conformance;

import dev.lockstep.lock.LockService;
import java.io.IOException;

/**
 * Opens the lock service under test. The default opens {@code LockServiceDiscovery.open(options)}
 * (chosen by {@code lock.type}).
 *
 * <p>Each call must return a new, independent client of the <em>same</em> lock (for ZooKeeper a new
 * session, for JDBC a new pool): the lock checks race contenders in different clients. The kit
 * closes every client it opens.
 */
@FunctionalInterface
public interface LockFactory {

  /** Opens a new client of the lock service under test; the kit closes it. */
  LockService open() throws IOException;
}
