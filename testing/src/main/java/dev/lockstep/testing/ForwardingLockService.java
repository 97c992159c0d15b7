package dev.lockstep.testing;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link LockService} that passes every call to another, for tests only: a test's lock that
 * changes one thing (pauses a holder, kills a session, records leases) extends it and overrides
 * {@link #acquire} alone; leases it hands out can be wrapped in a {@link ForwardingLease}.
 *
 * <p>{@link #unclosable} is a view of a service shared by several users (tables, kit clients): its
 * {@code close()} leaves the shared service running.
 */
public class ForwardingLockService implements LockService {

  private final LockService delegate;
  private final boolean closesDelegate;

  /** A view of {@code delegate} whose {@code close()} closes {@code delegate}. */
  public ForwardingLockService(LockService delegate) {
    this(delegate, true);
  }

  /**
   * @param closesDelegate whether {@code close()} closes {@code delegate} (false for a view of a
   *     shared service)
   */
  public ForwardingLockService(LockService delegate, boolean closesDelegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.closesDelegate = closesDelegate;
  }

  /** A view of {@code shared}: every call passes through, and closing the view closes nothing. */
  public static LockService unclosable(LockService shared) {
    return new ForwardingLockService(shared, false);
  }

  /** The service calls go to. */
  protected LockService delegate() {
    return delegate;
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout)
      throws IOException, InterruptedException {
    return delegate.acquire(key, timeout);
  }

  @Override
  public Duration holderDeathBound() {
    return delegate.holderDeathBound();
  }

  @Override
  public void close() throws IOException {
    if (closesDelegate) {
      delegate.close();
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + delegate + ")";
  }
}
