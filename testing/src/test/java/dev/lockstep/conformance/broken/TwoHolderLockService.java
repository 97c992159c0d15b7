package dev.lockstep.conformance.broken;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * DELIBERATELY BROKEN: a lock that lets two holders in (a semaphore of two permits per key, as a
 * miscounted lease table would). Fencing tokens still increase. The conformance kit must fail it.
 * Every instance built with the same {@link Shared} is a client of the same lock.
 */
public final class TwoHolderLockService implements LockService {

  /** The lock's state, shared by its clients. */
  public static final class Shared {
    final Map<String, Semaphore> permits = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> tokens = new ConcurrentHashMap<>();
  }

  private final Shared shared;
  private final java.util.List<Lease> mine =
      java.util.Collections.synchronizedList(new java.util.ArrayList<>());

  public TwoHolderLockService(Shared shared) {
    this.shared = shared;
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout) throws InterruptedException {
    Semaphore semaphore = shared.permits.computeIfAbsent(key, k -> new Semaphore(2, true));
    if (!semaphore.tryAcquire(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS)) {
      return Optional.empty();
    }
    long token = shared.tokens.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
    AtomicBoolean held = new AtomicBoolean(true);
    Lease lease =
        new Lease() {
          @Override
          public String key() {
            return key;
          }

          @Override
          public long fencingToken() {
            return token;
          }

          @Override
          public Duration timeLeft() {
            return held.get() ? Duration.ofMinutes(1) : Duration.ZERO;
          }

          @Override
          public boolean isHeld() {
            return held.get();
          }

          @Override
          public void ensureHeld() throws LockLostException {
            if (!held.get()) {
              throw new LockLostException("released");
            }
          }

          @Override
          public void close() {
            if (held.compareAndSet(true, false)) {
              semaphore.release();
            }
          }
        };
    mine.add(lease);
    return Optional.of(lease);
  }

  @Override
  public Duration holderDeathBound() {
    return Duration.ofSeconds(1);
  }

  /** Releases this client's own leases. */
  @Override
  public void close() throws java.io.IOException {
    synchronized (mine) {
      for (Lease lease : mine) {
        lease.close();
      }
      mine.clear();
    }
  }
}
