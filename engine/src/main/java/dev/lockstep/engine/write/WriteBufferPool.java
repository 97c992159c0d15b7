package dev.lockstep.engine.write;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory of the write buffers of one {@link TableWrite}: {@code write-buffer-size} bounds the
 * sum of its primary-key buckets' buffers, as Paimon's writer-wide memory pool does (not each
 * bucket's). When a write takes the sum to the bound, the largest buffer is flushed (then the next
 * largest, while the sum is still at the bound), whichever bucket the row went to.
 *
 * <p>Rows are added from the writing thread only; buffers may be released from the flush threads of
 * {@link TableWrite#prepareCommit} at once, so the sum is atomic.
 */
final class WriteBufferPool {

  private final long limit;
  private final AtomicLong used = new AtomicLong();
  private final List<MergeTreeWriter> writers = new ArrayList<>();

  WriteBufferPool(long limit) {
    this.limit = limit;
  }

  long limit() {
    return limit;
  }

  /** Bytes buffered now, in all buckets. */
  long used() {
    return used.get();
  }

  /** The buckets' writers, for tests. */
  List<MergeTreeWriter> writers() {
    return List.copyOf(writers);
  }

  void register(MergeTreeWriter writer) {
    writers.add(writer);
  }

  void unregister(MergeTreeWriter writer) {
    writers.remove(writer);
  }

  /**
   * A row of {@code bytes} went into a buffer: at the bound, flushes the largest buffers until the
   * sum is below it again.
   */
  void add(long bytes) throws IOException {
    long now = used.addAndGet(bytes);
    while (now >= limit) {
      MergeTreeWriter largest = null;
      for (MergeTreeWriter writer : writers) {
        if (writer.bufferedBytes() > 0
            && (largest == null || writer.bufferedBytes() > largest.bufferedBytes())) {
          largest = writer;
        }
      }
      if (largest == null) {
        break;
      }
      largest.flush();
      now = used.get();
    }
  }

  /** A buffer of {@code bytes} was flushed or dropped. */
  void release(long bytes) {
    used.addAndGet(-bytes);
  }
}
