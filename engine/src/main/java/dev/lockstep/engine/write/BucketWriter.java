package dev.lockstep.engine.write;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import java.io.IOException;

/** The writer of one (partition, bucket) inside a {@link TableWrite}. Not thread-safe. */
interface BucketWriter {

  /**
   * Buffers a row of kind {@code kind} ({@code -U} and {@code -D} only in primary-key buckets: the
   * caller checks).
   */
  void write(GenericRow row, RowKind kind) throws IOException;

  /** Writes buffered rows to new level-0 files (not committed until the next commit). */
  void flush() throws IOException;

  /** The view moved to a newer snapshot: the previous batch was committed (or abandoned). */
  void onRefresh() throws IOException;

  /**
   * Compacts now, in the caller's thread (waiting for a background compaction first). The result
   * goes into the next commit message.
   *
   * @param full everything into one run at the max level, instead of the universal pick
   */
  void compactNow(boolean full) throws IOException;

  /** Flushes and hands out what changed since the last call; the writer forgets those files. */
  CommitMessage prepareCommit(long baseSnapshotId) throws IOException;

  /** Stops background work and deletes files never handed out. */
  void close();
}
