package dev.lockstep.conformance.broken;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * DELIBERATELY BROKEN: a lock whose lease never expires after its holder dies, although it states a
 * holder-death bound of one second (a lease table without a TTL, a heartbeat nobody checks). A dead
 * holder keeps the key for an hour. The conformance kit must fail it.
 */
public final class ImmortalLeaseLockService implements LockService {

  /** The bound this lock claims, and does not keep. */
  public static final Duration CLAIMED_BOUND = Duration.ofSeconds(1);

  private final InJvmLockService lock;

  /** A client of {@code lock}, which must have a TTL far beyond {@link #CLAIMED_BOUND}. */
  public ImmortalLeaseLockService(InJvmLockService lock) {
    this.lock = lock;
  }

  /** The lock's state: leases that last an hour. */
  public static InJvmLockService immortalLeases() {
    return new InJvmLockService(Duration.ofHours(1));
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout)
      throws IOException, InterruptedException {
    return lock.acquire(key, timeout);
  }

  @Override
  public Duration holderDeathBound() {
    return CLAIMED_BOUND;
  }

  @Override
  public void close() {}
}
