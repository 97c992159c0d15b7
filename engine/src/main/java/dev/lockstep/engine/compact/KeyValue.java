package dev.lockstep.engine.compact;

import dev.lockstep.engine.data.GenericRow;

/**
 * A primary-key row with its ordering key: the snapshot that committed it, then its sequence
 * number inside that commit. Of two rows with one key, the greater (snapshot, sequence) wins; a
 * winning row with {@code deleted} set means the key is gone.
 */
public record KeyValue(GenericRow key, GenericRow row, long snapshot, long sequence,
    boolean deleted) {

  /** Whether this row wins over {@code other} (same key). */
  public boolean newerThan(KeyValue other) {
    return snapshot != other.snapshot ? snapshot > other.snapshot : sequence > other.sequence;
  }
}
