package dev.lockstep.testing;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link LockService} view of another, for tests only, whose holder can be made to pause right
 * after one of its lease checks: the {@code n}-th {@link Lease#ensureHeld()} of the next lease it
 * grants returns normally, and then, before the holder goes on, runs a test action (the "pause").
 *
 * <p>That is the window a lease cannot close by itself: the check said "held", then the process
 * stopped (a garbage-collection pause, a frozen VM) while the lease ran out and another writer took
 * the lock over and committed. The action typically expires the lease ({@link
 * InJvmLockService#expire}) and runs that other writer's whole commit; the paused holder then
 * continues as if nothing had happened, as a real one would.
 *
 * <p>Leases pass everything else to the delegate's lease unchanged.
 */
public final class PausingLockService extends ForwardingLockService {

  private final AtomicReference<Pause> armed = new AtomicReference<>();

  private record Pause(int check, PauseAction action) {}

  /** What runs while the holder is paused; may throw to fail the holder's call. */
  @FunctionalInterface
  public interface PauseAction {
    void run(Lease paused) throws Exception;
  }

  public PausingLockService(LockService delegate) {
    super(delegate);
  }

  /**
   * Arms a pause for the next lease this service grants: right after its {@code check}-th {@code
   * ensureHeld()} returns (1 = the first), {@code action} runs once in the holder's thread. Under
   * lock-api's {@code LockedPublisher}, check 1 follows the acquire and check 2 is the one right
   * before the write.
   */
  public void pauseAfterCheck(int check, PauseAction action) {
    if (check < 1) {
      throw new IllegalArgumentException("Checks are counted from 1: " + check);
    }
    armed.set(new Pause(check, action));
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout)
      throws IOException, InterruptedException {
    Optional<Lease> lease = super.acquire(key, timeout);
    if (lease.isEmpty()) {
      return lease;
    }
    Pause pause = armed.getAndSet(null);
    return pause == null ? lease : Optional.of(new PausingLease(lease.get(), pause));
  }

  private static final class PausingLease extends ForwardingLease {
    private final Pause pause;
    private final AtomicInteger checks = new AtomicInteger();

    PausingLease(Lease lease, Pause pause) {
      super(lease);
      this.pause = pause;
    }

    @Override
    public void ensureHeld() throws LockLostException {
      super.ensureHeld();
      if (checks.incrementAndGet() == pause.check()) {
        try {
          pause.action().run(delegate());
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException("The pause action failed", e);
        }
      }
    }

    @Override
    public String toString() {
      return "PausingLease(" + delegate() + ")";
    }
  }
}
