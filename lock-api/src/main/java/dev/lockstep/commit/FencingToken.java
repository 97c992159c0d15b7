package dev.lockstep.commit;

import java.util.Objects;

/**
 * The lease a snapshot was committed under, as the snapshot records it: which lock, and that
 * lease's {@link dev.lockstep.lock.Lease#fencingToken() fencing token}.
 *
 * <p>Tokens are compared only between equal {@code lock}s: a token strictly increases for every new
 * holder of one key of one lock service, and means nothing against another key or service.
 *
 * @param lock {@code <commit.fencing-scope>:<lock key>}, for example {@code zookeeper:shop.orders};
 *     the scope defaults to {@code lock.type}, so a table moved to another lock type starts a new
 *     sequence instead of comparing unrelated numbers
 * @param token the lease's fencing token
 */
public record FencingToken(String lock, long token) {

  public FencingToken {
    Objects.requireNonNull(lock, "lock");
  }

  /**
   * Whether {@code other} was handed out by the same lock to a later holder than this one: the
   * holder of this token lost its lease and someone else took the lock over.
   */
  public boolean isOlderThan(FencingToken other) {
    return lock.equals(other.lock) && token < other.token;
  }
}
