package dev.lockstep.conformance;

import dev.lockstep.lock.Lease;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.time.Duration;

/**
 * One lock ({@link InJvmLockService}, a test fixture) seen through many clients, as the kit expects
 * from a {@link LockFactory}: each client ({@link InJvmLockService#client()}) is a separate handle,
 * and closing it releases only the leases it acquired, never another client's.
 *
 * <p>Holder death is simulated faithfully: the {@link #killer()} acquires through its own client
 * and then abandons the lease without releasing or renewing it, so the key frees only when the
 * lease TTL (the service's holder-death bound) runs out.
 */
public final class InJvmLockClients {

  private final InJvmLockService lock;

  public InJvmLockClients(Duration leaseTtl) {
    this.lock = new InJvmLockService(leaseTtl);
  }

  public InJvmLockClients(InJvmLockService lock) {
    this.lock = lock;
  }

  /** A factory of independent clients of the one lock. */
  public LockFactory factory() {
    return lock::client;
  }

  /** A holder that acquires, then dies: it never releases or renews. */
  public HolderKiller killer() {
    return key -> {
      Lease lease =
          lock.acquire(key, Duration.ofSeconds(30))
              .orElseThrow(() -> new IOException("the doomed holder could not acquire " + key));
      return lease.fencingToken(); // and never touches the lease again
    };
  }
}
