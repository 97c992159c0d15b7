package dev.lockstep.conformance.broken;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardCopyOption;

/**
 * DELIBERATELY BROKEN: a rename that overwrites. It renames with POSIX {@code rename(2)} ({@code
 * Files.move(ATOMIC_MOVE)}), which is atomic but silently replaces an existing target: the trap
 * docs/architecture.md#design-2-1 warns about. Every contender is told it won, and a committed
 * snapshot can be replaced. The conformance kit must fail it.
 */
public final class OverwritingRenameFileIO extends CapabilityHidingFileIO
    implements SupportsAtomicRename {

  public OverwritingRenameFileIO() {
    super(new LocalFileIO());
  }

  @Override
  public void renameAtomically(Path source, Path target) throws IOException {
    java.nio.file.Path to = LocalFileIO.toLocal(target);
    Files.createDirectories(to.getParent());
    try {
      Files.move(LocalFileIO.toLocal(source), to, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      throw new FileNotFoundException(source + " does not exist");
    }
  }
}
