package dev.lockstep.testing;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link LockService} inside one JVM, for tests only: never a production default
 * (docs/architecture.md#design-2-2).
 *
 * <p>It keeps the full {@link LockService} contract, so that code under test behaves as with a real
 * backend:
 *
 * <ol>
 *   <li>At most one held lease per key.
 *   <li>Fencing tokens strictly increase per key, for every new holder.
 *   <li>A lease lasts {@code leaseTtl} from its acquisition (or its last {@link
 *       InJvmLease#renew()}); after that it is lost, {@link Lease#ensureHeld()} throws, and others
 *       may acquire the key.
 *   <li>Closing a lease is idempotent and never frees a key that another holder took over.
 * </ol>
 *
 * <p>Tests simulate holder death or a long pause with {@link #expire(String)} (the current holder
 * of a key loses its lease at once) or {@link InJvmLease#revoke()}. Counters tell how many leases
 * were granted and the most that were ever held at once for one key (which must stay 1).
 */
public final class InJvmLockService implements LockService {

  /** The lease time when none is given: long enough that no test lease expires by accident. */
  public static final Duration DEFAULT_LEASE_TTL = Duration.ofMinutes(1);

  private final Duration leaseTtl;
  private final Object monitor = new Object();
  private final Map<String, InJvmLease> holders = new HashMap<>();
  private final Map<String, Long> lastTokens = new HashMap<>();
  private final AtomicInteger granted = new AtomicInteger();
  private final AtomicInteger expiredOnPurpose = new AtomicInteger();
  private boolean closed;

  /** A service whose leases last {@link #DEFAULT_LEASE_TTL}. */
  public InJvmLockService() {
    this(DEFAULT_LEASE_TTL);
  }

  /** A service whose leases last {@code leaseTtl} unless renewed. */
  public InJvmLockService(Duration leaseTtl) {
    Objects.requireNonNull(leaseTtl, "leaseTtl");
    if (leaseTtl.isNegative() || leaseTtl.isZero()) {
      throw new IllegalArgumentException("The lease TTL must be positive: " + leaseTtl);
    }
    this.leaseTtl = leaseTtl;
  }

  @Override
  public Optional<Lease> acquire(String key, Duration timeout)
      throws IOException, InterruptedException {
    Objects.requireNonNull(key, "key");
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    synchronized (monitor) {
      while (true) {
        if (closed) {
          throw new IOException("InJvmLockService is closed; cannot acquire '" + key + "'");
        }
        InJvmLease holder = holders.get(key);
        if (holder == null || !holder.isHeld()) {
          long token = lastTokens.merge(key, 1L, Long::sum);
          InJvmLease lease = new InJvmLease(key, token, System.nanoTime() + leaseTtl.toNanos());
          holders.put(key, lease);
          granted.incrementAndGet();
          return Optional.of(lease);
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return Optional.empty();
        }
        // Wake up when the holder's lease runs out even if nobody releases it.
        long wait = Math.min(remaining, Math.max(1, holder.nanosLeft()));
        TimeUnit.NANOSECONDS.timedWait(monitor, Math.max(wait, 100_000L));
      }
    }
  }

  /**
   * A separate client of this one lock, as a lock server has many: closing it releases only the
   * leases it acquired (never another client's) and leaves this service running; it refuses to
   * acquire once closed.
   */
  public LockService client() {
    return new Client(this);
  }

  @Override
  public Duration holderDeathBound() {
    return leaseTtl;
  }

  /**
   * Ends the current lease on {@code key} now, as if its holder died or paused past its TTL.
   *
   * @return the fencing token of the lease that was ended, or empty when nobody held the key
   */
  public Optional<Long> expire(String key) {
    InJvmLease holder;
    synchronized (monitor) {
      holder = holders.get(key);
    }
    if (holder == null || !holder.isHeld()) {
      return Optional.empty();
    }
    holder.revoke();
    return Optional.of(holder.fencingToken());
  }

  /** The current holder of {@code key}, if any lease on it is held. */
  public Optional<InJvmLease> holder(String key) {
    synchronized (monitor) {
      InJvmLease holder = holders.get(key);
      return holder != null && holder.isHeld() ? Optional.of(holder) : Optional.empty();
    }
  }

  /** How many leases were granted, over all keys. */
  public int grantedLeases() {
    return granted.get();
  }

  /** How many leases were ended on purpose with {@link #expire} or {@link InJvmLease#revoke()}. */
  public int revokedLeases() {
    return expiredOnPurpose.get();
  }

  /** Releases every held lease; later acquires fail. Idempotent. */
  @Override
  public void close() {
    synchronized (monitor) {
      if (closed) {
        return;
      }
      closed = true;
      for (InJvmLease lease : holders.values()) {
        lease.end(false);
      }
      holders.clear();
      monitor.notifyAll();
    }
  }

  @Override
  public String toString() {
    return "InJvmLockService(ttl=" + leaseTtl + ")";
  }

  /** A lease handed out by {@link InJvmLockService}. */
  public final class InJvmLease implements Lease {
    private final String key;
    private final long token;
    private long expiresAtNanos; // guarded by monitor
    private boolean ended; // guarded by monitor: released, revoked or service closed
    private boolean revoked; // guarded by monitor

    private InJvmLease(String key, long token, long expiresAtNanos) {
      this.key = key;
      this.token = token;
      this.expiresAtNanos = expiresAtNanos;
    }

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
      return Duration.ofNanos(nanosLeft());
    }

    long nanosLeft() {
      synchronized (monitor) {
        if (ended) {
          return 0;
        }
        return Math.max(0, expiresAtNanos - System.nanoTime());
      }
    }

    @Override
    public boolean isHeld() {
      return nanosLeft() > 0;
    }

    @Override
    public void ensureHeld() throws LockLostException {
      synchronized (monitor) {
        if (revoked) {
          throw new LockLostException(
              "The lease on '"
                  + key
                  + "' (token "
                  + token
                  + ") was revoked: its holder is treated as dead");
        }
        if (ended) {
          throw new LockLostException(
              "The lease on '" + key + "' (token " + token + ") was released");
        }
        if (expiresAtNanos - System.nanoTime() <= 0) {
          throw new LockLostException(
              "The lease on '" + key + "' (token " + token + ") expired after " + leaseTtl);
        }
      }
    }

    /**
     * Extends the lease by the service's TTL from now, as a heartbeat would.
     *
     * @throws LockLostException when the lease is already lost; it cannot come back
     */
    public void renew() throws LockLostException {
      synchronized (monitor) {
        ensureHeld();
        expiresAtNanos = System.nanoTime() + leaseTtl.toNanos();
      }
    }

    /** Ends the lease now, as if its holder died: the key is free for the next acquirer. */
    public void revoke() {
      synchronized (monitor) {
        if (!ended) {
          revoked = true;
          expiredOnPurpose.incrementAndGet();
        }
        end(true);
      }
    }

    /** Whether {@link #revoke()} or {@link InJvmLockService#expire} ended this lease. */
    public boolean wasRevoked() {
      synchronized (monitor) {
        return revoked;
      }
    }

    private void end(boolean removeHolder) {
      synchronized (monitor) {
        ended = true;
        if (removeHolder && holders.get(key) == this) {
          holders.remove(key);
        }
        monitor.notifyAll();
      }
    }

    /** Releases the lease if still ours; never touches another holder's lease. Idempotent. */
    @Override
    public void close() {
      end(true);
    }

    @Override
    public String toString() {
      return "InJvmLease(" + key + ", token " + token + ")";
    }
  }

  /** One client of a shared lock: its close releases only its own leases. */
  private static final class Client extends ForwardingLockService {
    private final List<Lease> mine = new ArrayList<>();
    private boolean closed;

    Client(LockService lock) {
      super(lock, false);
    }

    @Override
    public Optional<Lease> acquire(String key, Duration timeout)
        throws IOException, InterruptedException {
      synchronized (this) {
        if (closed) {
          throw new IOException("this lock client is closed");
        }
      }
      Optional<Lease> lease = super.acquire(key, timeout);
      lease.ifPresent(
          l -> {
            synchronized (this) {
              mine.add(l);
            }
          });
      return lease;
    }

    @Override
    public void close() throws IOException {
      List<Lease> toRelease;
      synchronized (this) {
        closed = true;
        toRelease = new ArrayList<>(mine);
        mine.clear();
      }
      for (Lease lease : toRelease) {
        lease.close();
      }
    }
  }
}
