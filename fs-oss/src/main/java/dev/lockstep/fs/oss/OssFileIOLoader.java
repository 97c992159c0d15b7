package dev.lockstep.fs.oss;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIOLoader;
import dev.lockstep.fs.Path;
import dev.lockstep.options.OptionSet;
import java.util.Map;
import java.util.Set;

/** Serves {@code oss://bucket/key} with {@link OssFileIO}; options are {@link OssOptions}. */
public final class OssFileIOLoader implements FileIOLoader {

  @Override
  public Set<String> schemes() {
    return Set.of("oss");
  }

  @Override
  public OptionSet options() {
    return OssOptions.OPTIONS;
  }

  /**
   * Opens a store; no request is sent yet, so wrong credentials surface on the first call, as an
   * {@link java.nio.file.AccessDeniedException} naming the endpoint and the access key id.
   *
   * @throws IllegalArgumentException when an option is missing or invalid, naming the key
   */
  @Override
  public FileIO load(Path root, Map<String, String> options) {
    OssFileIO.keyOf(root);
    return new OssFileIO(OssOptions.from(options));
  }
}
