package dev.lockstep.testing;

import dev.lockstep.conformance.BlindPutStore;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * A {@link BlindPutStore} (check-then-put with replace, no conditional write) whose first write on
 * a matching path is held in flight and lands late, for tests only: a PUT already on the wire,
 * which neither the client's interrupt nor its timeout stops.
 *
 * <p>The held write checks existence when its stream opens, as every write here does; at close it
 * stops right before reaching the store and waits, ignoring interrupts (it notes them, see {@link
 * #awaitCancelled}), until {@link #land()}; then its bytes replace whatever is at the path,
 * whatever happened to its caller meanwhile. {@link #awaitLanded} returns once they are there.
 * Every other write passes.
 */
public final class HeldWriteFileIO extends BlindPutStore {

  private final Predicate<Path> matches;
  private final AtomicBoolean armed = new AtomicBoolean(true);
  private final CountDownLatch inFlight = new CountDownLatch(1);
  private final CountDownLatch cancelled = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch landed = new CountDownLatch(1);

  /** Holds the first write whose path matches {@code matches}. */
  public HeldWriteFileIO(FileIO delegate, Predicate<Path> matches) {
    super(delegate);
    this.matches = matches;
  }

  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    if (!matches.test(path) || !armed.getAndSet(false)) {
      return super.newOutputStream(path, overwrite);
    }
    if (!overwrite && delegate().exists(path)) {
      throw new FileAlreadyExistsException(path.toString(), null, "checked before a blind put");
    }
    return new HeldStream(path);
  }

  /** Waits until the held write is in flight (its stream was closed: the request is sent). */
  public void awaitInFlight(Duration timeout) throws InterruptedException {
    await(inFlight, timeout, "No matching write was sent");
  }

  /** Waits until the writer's client interrupted the held write (its caller gave up on it). */
  public void awaitCancelled(Duration timeout) throws InterruptedException {
    await(cancelled, timeout, "The held write was not cancelled");
  }

  /** Whether the writer's client has interrupted the held write so far. */
  public boolean cancelled() {
    return cancelled.getCount() == 0;
  }

  /** Lets the held write land. */
  public void land() {
    release.countDown();
  }

  /** Waits until the held write's bytes are in the store (or its delegate write failed). */
  public void awaitLanded(Duration timeout) throws InterruptedException {
    await(landed, timeout, "The held write did not land");
  }

  private static void await(CountDownLatch latch, Duration timeout, String failure)
      throws InterruptedException {
    if (!latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      throw new AssertionError(failure + " within " + timeout);
    }
  }

  private final class HeldStream extends BufferedWrite {
    private final Path path;

    HeldStream(Path path) {
      this.path = path;
    }

    @Override
    protected void land(ByteArrayOutputStream buffer) throws IOException {
      inFlight.countDown();
      while (true) {
        try {
          release.await();
          break;
        } catch (InterruptedException e) {
          cancelled.countDown(); // the client gave up; the request on the wire does not
        }
      }
      // The server applies it late: no interrupt of the client thread stops that.
      Thread.interrupted();
      try (OutputStream out = delegate().newOutputStream(path, true)) {
        buffer.writeTo(out);
      } finally {
        landed.countDown();
      }
    }
  }
}
