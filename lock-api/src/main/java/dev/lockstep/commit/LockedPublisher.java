package dev.lockstep.commit;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsWriteDeadline;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import dev.lockstep.options.Durations;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code commit.strategy=lock}: publish under a lease of the table's lock.
 *
 * <ol>
 *   <li>Acquire the table's lease: first without waiting; when another holder has it, the lock is
 *       <em>contended</em> (reported to the committer, see {@link CommitAttempt#lockContended()}),
 *       and the lease is then awaited within {@code lock-acquire-timeout}; none: fail, nothing
 *       written.
 *   <li>{@code ensureHeld()}; then check that the target is absent (present: conflict).
 *   <li>Bound the write by the lease time left minus {@code commit.lease-margin}; too little left:
 *       fail, nothing written. Right before the write starts, check the lease and the deadline
 *       again (the write runs on its own thread, which may start late).
 *   <li>Write: with the store's atomic primitive when it has one (the lock gives fairness, the
 *       primitive gives safety); otherwise a plain write, safe only because of the lease, whose
 *       request carries the deadline when the store {@link SupportsWriteDeadline}.
 *   <li>{@code ensureHeld()} again. For a plain write, read the target back: another content there
 *       means a holder that lost its lease raced us: conflict.
 *   <li>Release the lease (also after any failure).
 * </ol>
 *
 * <p>Race timeline this guards against: holder A pauses after step 2 past its lease, B acquires,
 * writes N and releases; A wakes. A's step-3 deadline has passed, so A's write is abandoned (a write
 * already in flight is reported uncertain and read back). Only a store's conditional write closes the
 * remaining window of a request already sent and landing late; that is why step 4 prefers it.
 *
 * <p>Outcomes: a lease lost or too short before the write starts raises {@link LockLostException}
 * (nothing written). A write that outlasts its budget, a lease lost during a plain write, or an
 * interrupt while the write is in flight raise {@link UncertainWriteException} (the committer reads
 * back; nothing is cleaned up).
 */
final class LockedPublisher implements SnapshotPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(LockedPublisher.class);

  private final FileIO store;
  private final SnapshotPublisher primitive;
  private final LockService lockService;
  private final String lockKey;
  private final CommitOptions options;
  private final ExecutorService writer;

  /**
   * @param primitive the store's atomic publisher, or {@code null} for a plain write under the lease
   */
  LockedPublisher(FileIO store, SnapshotPublisher primitive, LockService lockService, String lockKey,
      CommitOptions options) {
    this.store = store;
    this.primitive = primitive;
    this.lockService = lockService;
    this.lockKey = lockKey;
    this.options = options;
    this.writer = Executors.newCachedThreadPool(runnable -> {
      Thread thread = new Thread(runnable, "lockstep-locked-write");
      thread.setDaemon(true);
      return thread;
    });
  }

  @Override
  public String describe() {
    return CommitStrategy.LOCK.value() + (primitive == null ? " (plain write)" : " + "
        + primitive.describe());
  }

  @Override
  public void publish(Path target, byte[] content) throws IOException, InterruptedException {
    publish(target, content, () -> { });
  }

  /**
   * {@link #publish(Path, byte[])}, telling {@code onContended} when the lock was contended.
   *
   * <p>Contention is observed, not guessed from how long the acquire took: the first acquire does
   * not wait, and only when it comes back empty (another holder has the lease) is
   * {@code onContended} run, before the second acquire waits up to {@code lock-acquire-timeout}.
   * An uncontended lock costs no extra call; a contended one costs one acquire that does not wait
   * (on a fair queue such as ZooKeeper's, the waiter queues a moment later than it would have).
   *
   * @param onContended run at most once, before anything is written, when another holder had the
   *     lease when this publisher asked for it
   */
  void publish(Path target, byte[] content, Runnable onContended)
      throws IOException, InterruptedException {
    Duration acquireTimeout = options.lock().acquireTimeout();
    Optional<Lease> acquired = lockService.acquire(lockKey, Duration.ZERO);
    if (acquired.isEmpty()) {
      onContended.run();
      acquired = lockService.acquire(lockKey, acquireTimeout);
    }
    if (acquired.isEmpty()) {
      throw new IOException("Could not acquire the lock '" + lockKey + "' within "
          + Durations.format(acquireTimeout) + " (option 'lock-acquire-timeout'); nothing was"
          + " written. Another writer holds it, or the lock service is slow.");
    }
    Lease lease = acquired.get();
    IOException primary = null;
    try {
      publishUnder(lease, target, content);
    } catch (IOException e) {
      primary = e;
      throw e;
    } finally {
      try {
        lease.close();
      } catch (IOException e) {
        // A failed release is not a failed commit: the service frees the lease within its bound.
        if (primary != null) {
          primary.addSuppressed(e);
        } else {
          LOG.warn("Could not release the lock '{}' after publishing {}; the lock service frees it"
              + " within {}: {}", lockKey, target, Durations.format(lockService.holderDeathBound()),
              e.toString());
        }
      }
    }
  }

  private void publishUnder(Lease lease, Path target, byte[] content)
      throws IOException, InterruptedException {
    lease.ensureHeld();
    if (store.exists(target)) {
      throw new FileAlreadyExistsException(target.toString(), null,
          "snapshot already committed by another writer");
    }
    Duration budget = lease.timeLeft().minus(options.leaseMargin());
    if (budget.isNegative() || budget.isZero()) {
      throw new LockLostException("Only " + Durations.format(lease.timeLeft()) + " of the lease on '"
          + lockKey + "' is left, less than 'commit.lease-margin' "
          + Durations.format(options.leaseMargin()) + "; nothing was written.");
    }
    long deadline = System.nanoTime() + budget.toNanos();
    Future<?> write = writer.submit(() -> {
      // The task may start late (a busy machine, a paused JVM): check again right before writing.
      if (System.nanoTime() - deadline >= 0) {
        throw new LockLostException("The write to " + target + " did not start before the lease"
            + " budget ran out; nothing was written.");
      }
      lease.ensureHeld();
      if (primitive != null) {
        primitive.publish(target, content);
      } else if (store instanceof SupportsWriteDeadline) {
        // The store bounds the request itself: a stalled upload is aborted, not left to land late.
        ((SupportsWriteDeadline) store).writeWithin(target, content, false,
            Duration.ofNanos(deadline - System.nanoTime()));
      } else {
        try (OutputStream out = store.newOutputStream(target, false)) {
          out.write(content);
        }
      }
      return null;
    });
    try {
      write.get(budget.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      write.cancel(true);
      throw new UncertainWriteException(target, "the write did not finish within the lease time left ("
          + Durations.format(budget) + ")", e);
    } catch (InterruptedException e) {
      // The write may be in flight and may still land: that is uncertain, not "nothing happened".
      write.cancel(true);
      Thread.currentThread().interrupt();
      throw new UncertainWriteException(target, "interrupted while the write was in flight", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException) {
        throw (IOException) cause;
      }
      if (cause instanceof InterruptedException) {
        throw (InterruptedException) cause;
      }
      throw new IOException("Snapshot write to " + target + " failed", cause);
    }
    try {
      lease.ensureHeld();
    } catch (LockLostException e) {
      if (primitive == null) {
        throw new UncertainWriteException(target, "the lease was lost while writing", e);
      }
      // The atomic primitive decided the outcome on its own; losing the lease afterwards is harmless.
    }
    if (primitive == null && !Arrays.equals(readBack(target), content)) {
      throw new FileAlreadyExistsException(target.toString(), null,
          "another writer's snapshot replaced ours while the lease was in doubt");
    }
  }

  private byte[] readBack(Path target) throws IOException {
    try (InputStream in = store.newInputStream(target)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  void shutdown() {
    writer.shutdownNow();
  }
}
