package dev.lockstep.commit;

import java.util.Objects;
import java.util.Optional;

/** {@link SnapshotContent#of(byte[])}: bytes that do not depend on the lease. */
final class FixedContent implements SnapshotContent {

  private final byte[] bytes;

  FixedContent(byte[] bytes) {
    this.bytes = Objects.requireNonNull(bytes, "bytes");
  }

  /** The bytes themselves, for the committer: they are ours before any write. */
  byte[] bytes() {
    return bytes;
  }

  @Override
  public byte[] bytes(Optional<FencingToken> fencing) {
    return bytes;
  }
}
