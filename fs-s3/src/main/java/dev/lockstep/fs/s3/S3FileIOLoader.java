package dev.lockstep.fs.s3;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIOLoader;
import dev.lockstep.fs.Path;
import dev.lockstep.options.OptionSet;
import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code s3://} and {@code s3a://} paths. Builds an {@link S3ConditionalFileIO} (atomic
 * create, lock-free commits) when conditional writes are on, a plain {@link S3FileIO} otherwise:
 *
 * <ul>
 *   <li>{@code s3.conditional-writes=true}: on.
 *   <li>{@code false}: off; commits need {@code lock.enabled=true}.
 *   <li>{@code auto} (default): on for AWS S3 (no {@code s3.endpoint}, or a host under {@code
 *       amazonaws.com}); for any other endpoint decided by {@link ConditionalWriteProbe}.
 * </ul>
 */
public final class S3FileIOLoader implements FileIOLoader {

  @Override
  public Set<String> schemes() {
    return Set.of("s3", "s3a");
  }

  @Override
  public OptionSet options() {
    return S3Options.OPTIONS;
  }

  @Override
  public FileIO load(Path root, Map<String, String> options) throws IOException {
    S3Options s3Options = S3Options.from(options);
    S3Location location = S3Location.of(root);
    S3Clients clients = new S3Clients(s3Options);
    try {
      clients.checkCredentials();
      boolean conditional =
          switch (s3Options.conditionalWrites()) {
            case TRUE -> true;
            case FALSE -> false;
            case AUTO ->
                s3Options.isAwsEndpoint()
                    || ConditionalWriteProbe.supported(clients, s3Options, location);
          };
      return conditional
          ? new S3ConditionalFileIO(s3Options, clients)
          : new S3FileIO(s3Options, clients);
    } catch (IOException | RuntimeException e) {
      clients.close();
      throw e;
    }
  }
}
