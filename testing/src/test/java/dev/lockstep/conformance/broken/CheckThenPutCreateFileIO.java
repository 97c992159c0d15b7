package dev.lockstep.conformance.broken;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;

/**
 * DELIBERATELY BROKEN: "create if absent" done as check-then-put, the classic object-store mistake.
 * Two writers can both see the path absent and both put; each is told it won, and the later put
 * replaces the earlier one. The conformance kit must fail it.
 */
public final class CheckThenPutCreateFileIO extends CapabilityHidingFileIO
    implements SupportsAtomicCreate {

  public CheckThenPutCreateFileIO() {
    super(new LocalFileIO());
  }

  @Override
  public void createAtomically(Path path, byte[] content) throws IOException {
    if (exists(path)) {
      throw new FileAlreadyExistsException(path.toString());
    }
    try (OutputStream out = newOutputStream(path, true)) {
      out.write(content);
    }
  }
}
