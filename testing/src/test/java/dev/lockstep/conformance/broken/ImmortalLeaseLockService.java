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
  private final java.util.List<Lease> mine =
      java.util.Collections.synchronizedList(new java.util.ArrayList<>());

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
    Optional<Lease> lease = lock.acquire(key, timeout);
    lease.ifPresent(mine::add);
    return lease;
  }

  @Override
  public Duration holderDeathBound() {
    return CLAIMED_BOUND;
  }

  /** Releases this client's own leases; only a dead holder's lease is immortal. */
  @Override
  public void close() throws IOException {
    synchronized (mine) {
      for (Lease lease : mine) {
        lease.close();
      }
      mine.clear();
    }
  }
}
