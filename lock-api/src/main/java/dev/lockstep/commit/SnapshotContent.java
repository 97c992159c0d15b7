package dev.lockstep.commit;

import java.util.Optional;

/**
 * A snapshot's bytes, made once the commit knows which lease it publishes under, so that the
 * snapshot can record its {@link FencingToken} (see {@link SnapshotCommitter#commit(long,
 * SnapshotContent)}).
 *
 * <p>Called at most once per write attempt, under the lease for the {@code lock} strategy (so keep
 * it quick: it runs inside the lock), once per commit for the lock-free strategies. The bytes must
 * carry the commit's unique id, as for {@link #of(byte[])}; with the token they may differ from
 * attempt to attempt, and the committer recognises any of them as its own.
 */
@FunctionalInterface
public interface SnapshotContent {

  /**
   * @param fencing the lease this attempt publishes under ({@code lock} strategy), or empty for a
   *     lock-free strategy, which has no lease and records no token
   * @return the snapshot file's bytes
   */
  byte[] bytes(Optional<FencingToken> fencing);

  /**
   * The same bytes whatever the lease: a commit that records no fencing token. Equal bytes found at
   * the snapshot's path are this commit (a re-commit of bytes that landed earlier is COMMITTED), so
   * they must carry the commit's unique id.
   */
  static SnapshotContent of(byte[] bytes) {
    return new FixedContent(bytes);
  }
}
