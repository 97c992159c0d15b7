package dev.lockstep.engine.scan;

import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads the manifests of a plan with up to {@code scan.manifest.parallelism} threads (Paimon's
 * option), the calling thread included, and returns their entries in the manifests' order, so that
 * applying them stays the sequential fold it was.
 *
 * <p>The helper threads come from one JVM-wide pool of daemon threads that keeps no queue: a helper
 * that cannot start (the pool at its cap) is simply not there, and the calling thread and the other
 * helpers take its manifests. No plan waits for another plan's reads, and a plan never waits for a
 * thread that has not started. Manifests are immutable and {@code ManifestFile}'s cache is
 * thread-safe, so the reads share nothing else.
 */
final class ParallelManifestReads {

  /** Helper threads alive at once across the JVM, at most. */
  private static final int MAX_HELPERS = 64;

  private static final ThreadPoolExecutor HELPERS =
      new ThreadPoolExecutor(
          0,
          MAX_HELPERS,
          30,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          r -> {
            Thread t = new Thread(r, "lockstep-manifest-read");
            t.setDaemon(true);
            return t;
          });

  /** Reads one manifest. */
  @FunctionalInterface
  interface Read {
    List<ManifestEntry> apply(ManifestFileMeta meta) throws IOException;
  }

  private ParallelManifestReads() {}

  /**
   * The entries of each manifest of {@code metas}, in their order.
   *
   * @throws IOException the first failure of a read (the others' are dropped); the reads still
   *     running finish first
   */
  static List<List<ManifestEntry>> read(List<ManifestFileMeta> metas, Read read, int parallelism)
      throws IOException {
    int n = metas.size();
    if (parallelism <= 1 || n <= 1) {
      List<List<ManifestEntry>> all = new ArrayList<>(n);
      for (ManifestFileMeta meta : metas) {
        all.add(read.apply(meta));
      }
      return all;
    }
    @SuppressWarnings("unchecked")
    List<ManifestEntry>[] results = new List[n];
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(n);
    Runnable work =
        () -> {
          for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
            try {
              if (failure.get() == null) {
                results[i] = read.apply(metas.get(i));
              }
            } catch (Throwable t) {
              failure.compareAndSet(null, t);
            } finally {
              done.countDown();
            }
          }
        };
    int helpers = Math.min(parallelism, n) - 1;
    for (int h = 0; h < helpers; h++) {
      try {
        HELPERS.execute(work);
      } catch (RejectedExecutionException full) {
        break;
      }
    }
    work.run();
    try {
      done.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while reading manifests");
    }
    Throwable t = failure.get();
    if (t instanceof IOException io) {
      throw io;
    }
    if (t instanceof UncheckedIOException io) {
      throw io.getCause();
    }
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    if (t != null) {
      throw new IOException(t);
    }
    return Arrays.asList(results);
  }
}
