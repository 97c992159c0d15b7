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
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
 *   <li>{@code ensureHeld()}; then check that the target is absent (present: conflict; with a
 *       {@link FencingTokenReader} this is left to step 4, which reads the target anyway). Make the
 *       content, handing the lease's {@link FencingToken} to the caller's {@link SnapshotContent}.
 *   <li>Bound the write by the lease time left minus {@code commit.lease-margin}; too little left:
 *       fail, nothing written. Right before the write starts, check the lease and the deadline
 *       again (the write runs on its own thread, which may start late).
 *   <li>Fencing check, right after that last {@code ensureHeld()} and only when the committer has a
 *       {@link FencingTokenReader}: read {@code snapshot-N} and, when it is absent, {@code
 *       snapshot-(N-1)}, the latest committed snapshot. One that carries a newer token of the same
 *       lock was committed by a later holder, so our lease lapsed: {@link FencedCommitException},
 *       nothing written. {@code snapshot-N} present with an older or no token: conflict.
 *   <li>Write: with the store's atomic primitive when it has one (the lock gives fairness, the
 *       primitive gives safety); otherwise a plain write, safe only because of the lease, whose
 *       request carries the deadline when the store {@link SupportsWriteDeadline}.
 *   <li>Wait for the write within its budget, not interruptibly: a caller interrupted meanwhile (a
 *       cancelled Flink or Spark task) gets its interrupt back after the release, and the write's
 *       own outcome, since cancelling a request already on the wire only makes a known outcome
 *       unknown. A write over its budget is cancelled, and the lease is still kept until it has
 *       settled (its call returned or threw) or the lease's own time runs out: the request may
 *       still land, and the next holder must not check, write and be told COMMITTED before it does.
 *       Settled: its own outcome stands (a failure after the cancel is uncertain). Not settled when
 *       the lease runs out: uncertain, and released with the write pending (the window below).
 *   <li>{@code ensureHeld()} again. For a plain write, read the target back: another content there
 *       means a holder that lost its lease raced us: conflict.
 *   <li>Release the lease (also after any failure); an interrupt received meanwhile is given back
 *       after the release.
 * </ol>
 *
 * <p>Race timeline this guards against: holder A pauses after step 2 past its lease, B acquires,
 * writes N and releases; A wakes. A's step-3 deadline has passed, so A's write is abandoned (a
 * write already in flight is reported uncertain and read back). If A's lease still looks held to A
 * (its pause fell right after its last {@code ensureHeld()}, or the lease's own view of time is
 * off), the step-4 fencing check finds B's newer token and refuses. Neither closes a pause that
 * falls between the fencing check and the write, nor a request already sent and landing late: the
 * store does not check tokens. Only a store's conditional write closes that window; that is why
 * step 5 prefers it.
 *
 * <p>What remains: a write that has not settled when the lease runs out. With {@link
 * SupportsWriteDeadline} (S3, OSS) the request carries the budget as its deadline, so the client
 * gives up before the lease does, and only a request sent whole just before that deadline and
 * applied by the server just after is left. A store without it is only waited for: a plain write
 * that hangs past the lease (a stalled client, a paused JVM) can still land after the next holder
 * committed. Only a store's conditional write closes that.
 *
 * <p>Outcomes: a lease lost or too short before the write starts raises {@link LockLostException}
 * (nothing written); a newer holder's token raises {@link FencedCommitException} (nothing written);
 * an interrupt while waiting for the lock raises {@link InterruptedException} (nothing written). A
 * write that outlasts its budget and then fails or does not settle within the lease, or a lease
 * lost during a plain write, raise {@link UncertainWriteException} (the committer reads back;
 * nothing is cleaned up). A write that settles successfully, late or while the caller was
 * interrupted, is published as usual (step 7 checks it), with the interrupt flag restored.
 */
final class LockedPublisher implements SnapshotPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(LockedPublisher.class);

  private final FileIO store;
  private final SnapshotPublisher primitive;
  private final LockService lockService;
  private final String lockKey;
  private final CommitOptions options;
  private final FencingTokenReader tokenReader;
  private final String fencingLock;
  private final ExecutorService writer;

  /**
   * @param primitive the store's atomic publisher, or {@code null} for a plain write under the
   *     lease
   * @param tokenReader reads the token of a committed snapshot, or {@code null}: no fencing check
   */
  LockedPublisher(
      FileIO store,
      SnapshotPublisher primitive,
      LockService lockService,
      String lockKey,
      CommitOptions options,
      FencingTokenReader tokenReader) {
    this(
        store,
        primitive,
        lockService,
        lockKey,
        options,
        tokenReader,
        runnable -> {
          Thread thread = new Thread(runnable, "lockstep-locked-write");
          thread.setDaemon(true);
          return thread;
        });
  }

  /**
   * As above, with the threads the writes run on made by {@code writerThreads}: a seam for tests of
   * a write whose thread starts late (a busy machine, a paused JVM).
   */
  LockedPublisher(
      FileIO store,
      SnapshotPublisher primitive,
      LockService lockService,
      String lockKey,
      CommitOptions options,
      FencingTokenReader tokenReader,
      ThreadFactory writerThreads) {
    this.store = store;
    this.primitive = primitive;
    this.lockService = lockService;
    this.lockKey = lockKey;
    this.options = options;
    this.tokenReader = tokenReader;
    this.fencingLock = options.fencingScope() + ":" + lockKey;
    this.writer = Executors.newCachedThreadPool(writerThreads);
  }

  @Override
  public String describe() {
    return CommitStrategy.LOCK.value()
        + (primitive == null ? " (plain write)" : " + " + primitive.describe());
  }

  @Override
  public void publish(Path target, byte[] content) throws IOException, InterruptedException {
    publish(target, fencing -> content, () -> {}, new ArrayList<>());
  }

  /**
   * {@link #publish(Path, byte[])} with content made under the lease, telling {@code onContended}
   * when the lock was contended.
   *
   * <p>Contention is observed, not guessed from how long the acquire took: the first acquire does
   * not wait, and only when it comes back empty (another holder has the lease) is {@code
   * onContended} run, before the second acquire waits up to {@code lock-acquire-timeout}. An
   * uncontended lock costs no extra call; a contended one costs one acquire that does not wait (on
   * a fair queue such as ZooKeeper's, the waiter queues a moment later than it would have).
   *
   * @param content made once the lease is held, with its token
   * @param onContended run at most once, before anything is written, when another holder had the
   *     lease when this publisher asked for it
   * @param tried receives the bytes before they are written, so that the committer recognises them
   *     when it reads the target back
   */
  void publish(Path target, SnapshotContent content, Runnable onContended, List<byte[]> tried)
      throws IOException, InterruptedException {
    Hold hold = held.get();
    if (hold != null) {
      // Inside holding(): publish under the lease the caller holds; it is released by holding().
      if (hold.contended) {
        onContended.run();
      }
      AtomicBoolean interrupted = new AtomicBoolean();
      try {
        publishUnder(hold.lease, target, content, tried, interrupted);
      } finally {
        if (interrupted.get()) {
          Thread.currentThread().interrupt();
        }
      }
      return;
    }
    Lease lease = acquire(onContended);
    IOException primary = null;
    AtomicBoolean interrupted = new AtomicBoolean();
    try {
      publishUnder(lease, target, content, tried, interrupted);
    } catch (IOException e) {
      primary = e;
      throw e;
    } finally {
      release(lease, target.toString(), primary, interrupted);
    }
  }

  /**
   * Step 1: the table's lease, first without waiting, then (running {@code onContended} first)
   * within {@code lock-acquire-timeout}.
   *
   * @throws LockNotAcquiredException when the timeout passed; nothing was written
   */
  private Lease acquire(Runnable onContended) throws IOException, InterruptedException {
    Duration acquireTimeout = options.lock().acquireTimeout();
    Optional<Lease> acquired = lockService.acquire(lockKey, Duration.ZERO);
    if (acquired.isEmpty()) {
      onContended.run();
      acquired = lockService.acquire(lockKey, acquireTimeout);
    }
    if (acquired.isEmpty()) {
      throw new LockNotAcquiredException(
          "Could not acquire the lock '"
              + lockKey
              + "' within "
              + Durations.format(acquireTimeout)
              + " (option 'lock-acquire-timeout'); nothing was"
              + " written. Another writer holds it, or the lock service is slow.");
    }
    return acquired.get();
  }

  /** Step 8: releases {@code lease}; a failed release is logged or added to {@code primary}. */
  private void release(Lease lease, String after, Exception primary, AtomicBoolean interrupted) {
    try {
      lease.close();
    } catch (IOException e) {
      // A failed release is not a failed commit: the service frees the lease within its bound.
      if (primary != null) {
        primary.addSuppressed(e);
      } else {
        LOG.warn(
            "Could not release the lock '{}' after {}; the lock service frees it within {}:"
                + " {}",
            lockKey,
            after,
            Durations.format(lockService.holderDeathBound()),
            e.toString());
      }
    } finally {
      if (interrupted != null && interrupted.get()) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The lease a thread holds inside {@link #holding}, and whether it had to wait for it. */
  private record Hold(Lease lease, boolean contended) {}

  private final ThreadLocal<Hold> held = new ThreadLocal<>();

  /**
   * Runs {@code work} under one lease of the table's lock, acquired as for a publish (step 1);
   * every publish {@code work} makes on this thread uses that lease instead of taking its own, and
   * it is released when {@code work} returns or throws. So a committer can read the latest snapshot
   * and make its successor under the lease, and no other holder commits in between (see {@link
   * SnapshotCommitter#holding}). Not reentrant: a nested call fails.
   */
  <T> T holding(SnapshotCommitter.LeaseWork<T> work, Runnable onContended)
      throws IOException, InterruptedException {
    if (held.get() != null) {
      throw new IllegalStateException("Already holding the lock '" + lockKey + "' on this thread");
    }
    boolean[] contended = {false};
    Lease lease =
        acquire(
            () -> {
              contended[0] = true;
              onContended.run();
            });
    Exception primary = null;
    held.set(new Hold(lease, contended[0]));
    try {
      return work.run();
    } catch (IOException | InterruptedException | RuntimeException e) {
      primary = e;
      throw e;
    } finally {
      held.remove();
      release(lease, "holding it", primary, null);
    }
  }

  private void publishUnder(
      Lease lease,
      Path target,
      SnapshotContent contentUnderLease,
      List<byte[]> tried,
      AtomicBoolean interrupted)
      throws IOException, InterruptedException {
    lease.ensureHeld();
    // With a token reader, the fencing check right before the write reads the target anyway.
    if (tokenReader == null && store.exists(target)) {
      throw new FileAlreadyExistsException(
          target.toString(), null, "snapshot already committed by another writer");
    }
    FencingToken ours = new FencingToken(fencingLock, lease.fencingToken());
    byte[] content = contentUnderLease.bytes(Optional.of(ours));
    tried.add(content);
    Duration budget = lease.timeLeft().minus(options.leaseMargin());
    if (budget.isNegative() || budget.isZero()) {
      throw new LockLostException(
          "Only "
              + Durations.formatRounded(lease.timeLeft())
              + " of the lease on '"
              + lockKey
              + "' is left, less than 'commit.lease-margin' "
              + Durations.format(options.leaseMargin())
              + "; nothing was written.");
    }
    long deadline = System.nanoTime() + budget.toNanos();
    WriteInFlight write = new WriteInFlight();
    write.start(
        () -> {
          // The task may start late (a busy machine, a paused JVM): check again right before
          // writing.
          if (System.nanoTime() - deadline >= 0) {
            throw new LockLostException(
                "The write to "
                    + target
                    + " did not start before the lease"
                    + " budget ran out; nothing was written.");
          }
          lease.ensureHeld();
          checkFence(target, ours);
          if (primitive != null) {
            primitive.publish(target, content);
          } else if (store instanceof SupportsWriteDeadline) {
            // The store bounds the request itself: a stalled upload is aborted, not left to land
            // late.
            ((SupportsWriteDeadline) store)
                .writeWithin(
                    target, content, false, Duration.ofNanos(deadline - System.nanoTime()));
          } else {
            try (OutputStream out = store.newOutputStream(target, false)) {
              out.write(content);
            }
          }
        });
    // An interrupt does not cut the write short: cancelling a request already on the wire only
    // turns a known outcome into an unknown one (the server may still apply it). The write is
    // waited for within its budget as usual, and the interrupt given back after the release.
    String abandoned = null;
    if (!awaitUntil(write, deadline, interrupted)) {
      abandoned =
          "the write did not finish within the lease time left ("
              + Durations.formatRounded(budget)
              + ")";
      if (!settleAbandoned(lease, target, write, abandoned, interrupted)) {
        throw new LockLostException(
            "The write to "
                + target
                + " did not start within the lease"
                + " budget ("
                + Durations.formatRounded(budget)
                + "); nothing was written.");
      }
    }
    write.rethrowFailure(target, abandoned);
    try {
      lease.ensureHeld();
    } catch (LockLostException e) {
      if (primitive == null) {
        throw new UncertainWriteException(target, "the lease was lost while writing", e);
      }
      // The atomic primitive decided the outcome on its own; losing the lease afterwards is
      // harmless.
    }
    if (primitive == null && !Arrays.equals(readBack(target), content)) {
      throw new FileAlreadyExistsException(
          target.toString(),
          null,
          "another writer's snapshot replaced ours while the lease was in doubt");
    }
  }

  /**
   * Waits, not interruptibly, until {@code write} settles or {@code deadline} ({@link
   * System#nanoTime()}) passes; whether it settled. An interrupt meanwhile is noted in {@code
   * interrupted}, to be given back once the lease is released (see {@link #publish}).
   */
  private static boolean awaitUntil(WriteInFlight write, long deadline, AtomicBoolean interrupted) {
    while (true) {
      long left = deadline - System.nanoTime();
      try {
        if (write.awaitSettled(Duration.ofNanos(Math.max(0, left)))) {
          return true;
        }
      } catch (InterruptedException e) {
        interrupted.set(true);
        continue;
      }
      if (left <= 0) {
        return false;
      }
    }
  }

  /**
   * Gives up waiting for {@code write} (over its budget) without giving up the lease while the
   * write can still land: a write already sent may be applied late, and a next holder must not
   * check, write and be told COMMITTED before that.
   *
   * <ol>
   *   <li>Not started yet: it never will; returns {@code false} (nothing was written).
   *   <li>Otherwise cancel it (its thread is interrupted; a store whose request carries the
   *       deadline aborts it anyway at that deadline) and wait, not interruptibly (an interrupt
   *       meanwhile is noted in {@code interrupted} and given back after the release), until it
   *       settles or the lease's own time runs out (its time left now, never extended by renewals),
   *       then return {@code true}; the write's own outcome is then known.
   *   <li>Not settled by then: {@link UncertainWriteException}. The lease is released with the
   *       write still pending: the window the class javadoc states.
   * </ol>
   */
  private boolean settleAbandoned(
      Lease lease, Path target, WriteInFlight write, String reason, AtomicBoolean interrupted)
      throws UncertainWriteException {
    if (write.abandonIfNotStarted()) {
      return false;
    }
    write.cancel();
    Duration leaseLeft = lease.timeLeft();
    long end = System.nanoTime() + leaseLeft.toNanos();
    while (true) {
      long left = Math.min(end - System.nanoTime(), lease.timeLeft().toNanos());
      if (left <= 0) {
        break;
      }
      try {
        if (write.awaitSettled(Duration.ofNanos(left))) {
          return true;
        }
      } catch (InterruptedException e) {
        interrupted.set(true); // given back once the lease is released, see publish()
      }
    }
    LOG.warn(
        "The write to {} had not settled when the lease on '{}' ran out ({} after it was"
            + " abandoned: {}); the lock is released with that write possibly still landing",
        target,
        lockKey,
        Durations.formatRounded(leaseLeft),
        reason);
    throw new UncertainWriteException(
        target,
        reason + ", and it had not settled when the lease ran" + " out; it may still land",
        null);
  }

  /**
   * Step 4: refuses when {@code snapshot-N}, or the latest committed snapshot {@code
   * snapshot-(N-1)} when N is absent, carries a newer token of our lock; N present otherwise is a
   * conflict.
   */
  private void checkFence(Path target, FencingToken ours) throws IOException {
    if (tokenReader == null) {
      return;
    }
    byte[] taken = readIfPresent(target);
    if (taken != null) {
      refuseIfNewer(target, target, ours, taken);
      throw new FileAlreadyExistsException(
          target.toString(), null, "snapshot already committed by another writer");
    }
    long id = SnapshotLog.parseId(target.name());
    if (id > 1) {
      Path latest = target.parent().child(SnapshotLog.PREFIX + (id - 1));
      byte[] committed = readIfPresent(latest);
      if (committed != null) {
        refuseIfNewer(target, latest, ours, committed);
      }
    }
    // Snapshot files never change once written, and the lease was held a moment ago: a later holder
    // that committed before now has been seen. One that commits after now is not (see class doc).
  }

  private void refuseIfNewer(Path target, Path snapshot, FencingToken ours, byte[] content)
      throws IOException {
    Optional<FencingToken> theirs = tokenReader.read(content);
    if (theirs.isPresent() && ours.isOlderThan(theirs.get())) {
      throw new FencedCommitException(target, ours, snapshot, theirs.get());
    }
  }

  private byte[] readIfPresent(Path path) throws IOException {
    try {
      return readBack(path);
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  private byte[] readBack(Path target) throws IOException {
    try (InputStream in = store.newInputStream(target)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  /** The write itself, run on the writer thread under the lease. */
  @FunctionalInterface
  private interface WriteAction {
    void run() throws IOException, InterruptedException;
  }

  /**
   * One write on the writer thread. Unlike a bare {@link Future}, whose {@code cancel} completes it
   * at once, this tells when the write has really settled: its code has returned or thrown.
   */
  private final class WriteInFlight {
    private static final int PENDING = 0;
    private static final int RUNNING = 1;
    private static final int ABANDONED = 2;

    private final AtomicInteger phase = new AtomicInteger(PENDING);
    private final CountDownLatch settled = new CountDownLatch(1);
    private volatile Throwable failure;
    private volatile Future<?> future;

    void start(WriteAction action) {
      future =
          writer.submit(
              () -> {
                if (!phase.compareAndSet(PENDING, RUNNING)) {
                  return; // abandoned before it started: nothing is written
                }
                try {
                  action.run();
                } catch (Throwable t) {
                  failure = t;
                } finally {
                  settled.countDown();
                }
              });
    }

    /** Waits up to {@code timeout}; whether the write has settled. */
    boolean awaitSettled(Duration timeout) throws InterruptedException {
      return settled.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Whether the write had not started, in which case it never will. */
    boolean abandonIfNotStarted() {
      return phase.compareAndSet(PENDING, ABANDONED);
    }

    /** Interrupts the running write. */
    void cancel() {
      future.cancel(true);
    }

    /**
     * Throws the settled write's failure, if any. After it was abandoned ({@code abandoned} names
     * why), a failure that does not prove that nothing landed is uncertain.
     */
    void rethrowFailure(Path target, String abandoned) throws IOException, InterruptedException {
      Throwable cause = failure;
      if (cause == null) {
        return;
      }
      boolean definite =
          cause instanceof FileAlreadyExistsException
              || cause instanceof LockLostException
              || cause instanceof UncertainWriteException;
      if (abandoned != null && !definite) {
        throw new UncertainWriteException(target, abandoned, cause);
      }
      if (cause instanceof IOException) {
        throw (IOException) cause;
      }
      if (cause instanceof InterruptedException) {
        throw (InterruptedException) cause;
      }
      throw new IOException("Snapshot write to " + target + " failed", cause);
    }
  }

  void shutdown() {
    writer.shutdownNow();
  }
}
