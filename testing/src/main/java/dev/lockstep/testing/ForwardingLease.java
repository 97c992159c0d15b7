package dev.lockstep.testing;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;

/**
 * A {@link Lease} that passes every call to another, for tests only: a lease that changes one thing
 * (pauses its holder after a check, counts renewals) extends it and overrides that call alone.
 */
public class ForwardingLease implements Lease {

  private final Lease delegate;

  public ForwardingLease(Lease delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The lease calls go to. */
  protected Lease delegate() {
    return delegate;
  }

  @Override
  public String key() {
    return delegate.key();
  }

  @Override
  public long fencingToken() {
    return delegate.fencingToken();
  }

  @Override
  public Duration timeLeft() {
    return delegate.timeLeft();
  }

  @Override
  public boolean isHeld() {
    return delegate.isHeld();
  }

  @Override
  public void ensureHeld() throws LockLostException {
    delegate.ensureHeld();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + delegate + ")";
  }
}
