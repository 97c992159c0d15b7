package dev.lockstep.paimon.lock;

import dev.lockstep.lock.Lease;
import java.util.Optional;

/**
 * The Lockstep lease that the current thread's Paimon {@code runWithLock} holds, if any.
 *
 * <p>Paimon runs the snapshot commit ({@code exists} + {@code tryToWriteAtomic}) inside {@code
 * runWithLock} on the calling thread. Lockstep's FileIO reads the lease from here so that a blind
 * write under a lock checks {@link Lease#ensureHeld()} and is bounded by {@link Lease#timeLeft()},
 * exactly as Lockstep's own locked commit does; a write after the lease was lost is then refused
 * instead of landing under a lease someone else now holds.
 */
public final class CurrentLease {

  private static final ThreadLocal<Lease> HELD = new ThreadLocal<>();

  private CurrentLease() {}

  /** The lease held by this thread's {@code runWithLock}, or empty outside one. */
  public static Optional<Lease> get() {
    return Optional.ofNullable(HELD.get());
  }

  /** Sets the thread's lease for the duration of a callable; returns the one it replaces. */
  static Lease enter(Lease lease) {
    Lease previous = HELD.get();
    HELD.set(lease);
    return previous;
  }

  /** Restores what {@link #enter} replaced. */
  static void leave(Lease previous) {
    if (previous == null) {
      HELD.remove();
    } else {
      HELD.set(previous);
    }
  }
}
