package dev.lockstep.fs.local;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIOLoader;
import dev.lockstep.fs.Path;
import dev.lockstep.options.OptionSet;
import java.util.Map;
import java.util.Set;

/** Serves {@code file://} URIs and bare paths with {@link LocalFileIO}. */
public final class LocalFileIOLoader implements FileIOLoader {

  @Override
  public Set<String> schemes() {
    return Set.of("file");
  }

  /** The local store reads no options. */
  @Override
  public OptionSet options() {
    return OptionSet.of("the local store", "lock-api/README.md").build();
  }

  @Override
  public FileIO load(Path root, Map<String, String> options) {
    return new LocalFileIO();
  }
}
