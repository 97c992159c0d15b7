package dev.lockstep.conformance.broken;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * DELIBERATELY BROKEN: an atomic create that acknowledges every fifth snapshot write without
 * storing it (a write acknowledged before it is durable, then lost). The commit checks must fail
 * it: a commit reported as committed is not in the table.
 */
public final class ForgetfulCreateFileIO extends CapabilityHidingFileIO
    implements SupportsAtomicCreate {

  private static final AtomicInteger SNAPSHOT_WRITES = new AtomicInteger();
  private final LocalFileIO local;

  public ForgetfulCreateFileIO() {
    this(new LocalFileIO());
  }

  private ForgetfulCreateFileIO(LocalFileIO local) {
    super(local);
    this.local = local;
  }

  @Override
  public void createAtomically(Path path, byte[] content) throws IOException {
    if (path.name().startsWith("snapshot-") && SNAPSHOT_WRITES.incrementAndGet() % 5 == 0) {
      return; // "done", but nothing was stored
    }
    local.createAtomically(path, content);
  }
}
