package dev.lockstep.engine.write;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory of the write buffers of one {@link TableWrite}: {@code write-buffer-size} bounds the
 * sum of its primary-key buckets' buffers, as Paimon's writer-wide memory pool does (not each
 * bucket's). When a write takes the sum to the bound, the largest buffer is flushed (then the next
 * largest, while the sum is still at the bound), whichever bucket the row went to.
 *
 * <p>The buffers hold their rows in byte pages ({@link BinaryWriteBuffer}); a flushed buffer gives
 * its pages back here and the next buffer to grow takes them again, so that after the first fill
 * the buffers allocate no memory for rows (as Paimon's memory pool reuses its segments). The bound
 * is on the rows' bytes, not on the pages: a bucket's last page is partly empty.
 *
 * <p>Rows are added from the writing thread only; buffers may be released from the flush threads of
 * {@link TableWrite#prepareCommit} at once, so the sum is atomic and the free pages are guarded.
 */
final class WriteBufferPool {

  private final long limit;
  private final AtomicLong used = new AtomicLong();
  private final List<MergeTreeWriter> writers = new ArrayList<>();

  /** Pages given back by flushed buffers, for the next buffer to take. */
  private final ArrayDeque<byte[]> freePages = new ArrayDeque<>();

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

  /** A page of {@code bytes} bytes: a free one if there is one, else a new one. */
  synchronized byte[] takePage(int bytes) {
    byte[] page = freePages.pollLast();
    return page != null && page.length == bytes ? page : new byte[bytes];
  }

  /**
   * Takes back the page of a flushed buffer. Keeps at most the pages that the bound can fill (and
   * one per bucket for its partly filled last page); beyond, pages are left to the collector.
   */
  synchronized void returnPage(byte[] page) {
    if ((long) freePages.size() * page.length < limit + (long) writers.size() * page.length) {
      freePages.addLast(page);
    }
  }
}
