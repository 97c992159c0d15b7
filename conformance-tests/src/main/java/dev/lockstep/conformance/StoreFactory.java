package dev.lockstep.conformance;

import dev.lockstep.fs.FileIO;
import java.io.IOException;

/**
 * Opens the store under test. The default opens {@code FileIODiscovery.open(uri, options)}; a test
 * fixture or a vendor with a store that is not on the ServiceLoader path passes its own.
 *
 * <p>Called once per check and per extra client a check needs (races use several clients); each
 * returned store is closed by the kit.
 */
@FunctionalInterface
public interface StoreFactory {

  /** Opens a new client of the store under test; the kit closes it. */
  FileIO open() throws IOException;
}
