package dev.lockstep.commit;

import java.io.IOException;
import java.util.Optional;

/**
 * Finds the {@link FencingToken} a committed snapshot recorded. The snapshot format is the caller's
 * (the engine's JSON), so the caller that writes the token through {@link SnapshotContent} also
 * says how to read it back. Given to {@link SnapshotCommitter.Builder#fencing}; without one, the
 * {@code lock} strategy cannot see tokens and makes no fencing check.
 */
@FunctionalInterface
public interface FencingTokenReader {

  /**
   * @param snapshot a committed snapshot file's bytes
   * @return its token, or empty when it was committed without one (a lock-free strategy, an older
   *     file, a caller that commits plain bytes)
   * @throws IOException when the bytes cannot be read as a snapshot
   */
  Optional<FencingToken> read(byte[] snapshot) throws IOException;
}
