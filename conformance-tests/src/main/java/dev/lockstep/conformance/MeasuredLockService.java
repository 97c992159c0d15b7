package dev.lockstep.conformance;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * A lock service whose acquires and releases are timed into {@link Latencies}: {@code lock.acquire}
 * (successful, uncontended-or-not acquires), {@code lock.acquire-timeout} (acquires that returned
 * empty) and {@code lock.release}.
 */
final class MeasuredLockService implements LockService {

  private final LockService delegate;
  private final Latencies latencies;

  MeasuredLockService(LockService delegate, Latencies latencies) {
    this.delegate = delegate;
    this.latencies = latencies;
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    Optional<Lease> lease = delegate.acquire(key, timeout);
    latencies.record(
        lease.isPresent() ? "lock.acquire" : "lock.acquire-timeout", System.nanoTime() - start);
    return lease.map(MeasuredLease::new);
  }

  @Override
  public Duration holderDeathBound() {
    return delegate.holderDeathBound();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }

  private final class MeasuredLease implements Lease {
    private final Lease lease;

    MeasuredLease(Lease lease) {
      this.lease = lease;
    }

    @Override
    public String key() {
      return lease.key();
    }

    @Override
    public long fencingToken() {
      return lease.fencingToken();
    }

    @Override
    public Duration timeLeft() {
      return lease.timeLeft();
    }

    @Override
    public boolean isHeld() {
      return lease.isHeld();
    }

    @Override
    public void ensureHeld() throws LockLostException {
      lease.ensureHeld();
    }

    @Override
    public void close() throws IOException {
      long start = System.nanoTime();
      try {
        lease.close();
      } finally {
        latencies.record("lock.release", System.nanoTime() - start);
      }
    }

    @Override
    public String toString() {
      return lease.toString();
    }
  }
}
