package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The lock ({@link Capability#LOCK}): a {@link LockService} keeps mutual exclusion, bounded timed
 * acquires, holder-death recovery within {@link LockService#holderDeathBound()}, {@code ensureHeld}
 * after loss, strictly increasing fencing tokens, and ownership. Contenders use separate clients
 * (separate sessions or pools) opened through the target's lock factory.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class LockContract extends ConformanceContract {

  private static final int CLIENTS = 3;

  /**
   * Declared present: the lock opens and states a finite holder-death bound. Declared absent: no
   * lock is configured, and opening one fails with an error naming {@code lock.type}.
   */
  @Test
  @Order(1)
  @Proves(
      "The lock declaration matches the target: a declared lock opens with a finite holder-death"
          + " bound; an absent one fails to open clearly.")
  public final void lockDeclarationMatchesTarget() throws IOException {
    if (declaration(Capability.LOCK)) {
      LockService lock = openLock();
      Duration bound = lock.holderDeathBound();
      assertThat(bound)
          .as("holderDeathBound() must be positive and finite")
          .isPositive()
          .isLessThan(Duration.ofHours(1));
      return;
    }
    assertThat(currentTarget().hasLock())
        .as(
            "lock is declared absent, yet the target configures"
                + " one (lock.type or a lock factory): declare it present or remove it")
        .isFalse();
    assertThat(catchThrowable(() -> currentTarget().openLock()))
        .as("opening a lock that is declared absent must fail with a clear error")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lock.type");
    Map<String, String> options = new HashMap<>(currentTarget().options());
    options.remove("lock.type");
    assertThat(catchThrowable(() -> LockServiceDiscovery.open(options)))
        .as("LockServiceDiscovery without lock.type")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock.type");
  }

  /**
   * Contenders on separate clients start on a barrier and each increment a plain (non-atomic)
   * counter under the lock, many times: the total is exact and no two were ever inside at once.
   */
  @Test
  @Order(2)
  @Proves(
      "Contenders on separate clients increment a non-atomic counter under the lock: the total is"
          + " exact, never two holders at once.")
  public final void mutualExclusionKeepsCounterExact() throws Exception {
    requirePresent(Capability.LOCK);
    List<LockService> clients = clients();
    String key = key();
    int contenders = settings().contenders();
    int increments = settings().lockIncrements();
    Duration wait = settings().scaled(Duration.ofSeconds(60));
    Counter counter = new Counter();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    CyclicBarrier barrier = new CyclicBarrier(contenders);
    ExecutorService threads = Executors.newFixedThreadPool(contenders);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int c = 0; c < contenders; c++) {
        LockService client = clients.get(c % clients.size());
        futures.add(
            threads.submit(
                () -> {
                  barrier.await(wait.toMillis(), TimeUnit.MILLISECONDS);
                  for (int i = 0; i < increments; i++) {
                    Lease lease =
                        client
                            .acquire(key, wait)
                            .orElseThrow(
                                () ->
                                    new AssertionError(
                                        "acquire("
                                            + key
                                            + ") timed out after "
                                            + wait.toSeconds()
                                            + " s under contention"));
                    try {
                      if (inside.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                      }
                      int seen = counter.value;
                      Thread.yield();
                      counter.value = seen + 1;
                      inside.decrementAndGet();
                    } finally {
                      lease.close();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(wait.toMillis() * 2, TimeUnit.MILLISECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(overlaps.get()).as("times two holders were inside the lock at once").isZero();
    assertThat(counter.value)
        .as(
            "%d contenders x %d increments of a non-atomic counter under the" + " lock",
            contenders, increments)
        .isEqualTo(contenders * increments);
  }

  /**
   * While the key is held elsewhere, a timed acquire returns empty after about its timeout, neither
   * much earlier nor later than the tolerance; a zero timeout returns at once; another key is free;
   * after the release, the waiter gets the key.
   */
  @Test
  @Order(3)
  @Proves(
      "A timed acquire of a held key returns empty after about its timeout (not early, not late);"
          + " other keys stay free.")
  public final void timedAcquireRespectsItsBound() throws Exception {
    requirePresent(Capability.LOCK);
    List<LockService> clients = clients();
    String key = key();
    Duration timeout = settings().scaled(Duration.ofSeconds(1));
    Duration tolerance = settings().scaledTolerance();
    Lease held =
        clients
            .get(0)
            .acquire(key, timeout)
            .orElseThrow(
                () -> new AssertionError("could not acquire a free key within " + timeout));
    long start = System.nanoTime();
    Optional<Lease> refused = clients.get(1).acquire(key, timeout);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    refused.ifPresent(this::closeQuietly);
    assertThat(refused).as("acquire of a key held by another client").isEmpty();
    assertThat(took)
        .as("a timed acquire must wait about its timeout %s, not give up early", timeout)
        .isGreaterThanOrEqualTo(timeout.multipliedBy(9).dividedBy(10));
    assertThat(took)
        .as("a timed acquire must return within its timeout %s + tolerance %s", timeout, tolerance)
        .isLessThanOrEqualTo(timeout.plus(tolerance));
    start = System.nanoTime();
    Optional<Lease> zero = clients.get(1).acquire(key, Duration.ZERO);
    zero.ifPresent(this::closeQuietly);
    assertThat(zero).as("acquire with a zero timeout of a held key").isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("a zero-timeout acquire returns at" + " once (within the tolerance)")
        .isLessThanOrEqualTo(tolerance);
    Optional<Lease> otherKey = clients.get(1).acquire(key + "-other", timeout);
    assertThat(otherKey).as("another key is independent").isPresent();
    otherKey.get().close();
    held.close();
    Optional<Lease> after = clients.get(1).acquire(key, timeout.plus(tolerance));
    assertThat(after).as("acquire after the holder released").isPresent();
    after.get().close();
  }

  /**
   * A holder that dies while holding the key (by default a child JVM that halts) loses it within
   * the service's holderDeathBound() plus the tolerance; the next holder gets a larger fencing
   * token.
   */
  @Test
  @Order(4)
  @Proves(
      "A holder that dies holding the key loses it within holderDeathBound() plus the tolerance;"
          + " the next token is larger.")
  public final void deadHolderIsFreedWithinBound() throws Exception {
    requirePresent(Capability.LOCK);
    LockService lock = openLock();
    Duration bound = lock.holderDeathBound();
    Duration limit = bound.plus(settings().scaledTolerance());
    String key = key();
    long deadToken = currentTarget().holderKiller().acquireAndDie(key);
    long start = System.nanoTime();
    Optional<Lease> next = lock.acquire(key, limit);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(next)
        .as(
            "the dead holder's lock must be free within holderDeathBound() %s +"
                + " tolerance %s; it was still held after %s",
            bound, settings().scaledTolerance(), took)
        .isPresent();
    try (Lease lease = next.get()) {
      assertThat(lease.fencingToken())
          .as("the new holder's fencing token after the dead holder's")
          .isGreaterThan(deadToken);
    }
  }

  /**
   * ensureHeld() returns while the lease is held and throws LockLostException once it is gone, for
   * good; isHeld() and timeLeft() agree; close() is idempotent. Closing the holder's whole client
   * also ends its lease: ensureHeld() fails and another client gets the key.
   */
  @Test
  @Order(5)
  @Proves(
      "ensureHeld() throws LockLostException once the lease is gone (released, or its client"
          + " closed), for good; isHeld and timeLeft agree; close is idempotent.")
  public final void ensureHeldFailsOnceLeaseIsGone() throws Exception {
    requirePresent(Capability.LOCK);
    LockService lock = clients().get(0);
    Lease lease =
        lock.acquire(key(), settings().scaled(Duration.ofSeconds(10)))
            .orElseThrow(() -> new AssertionError("could not acquire a free key"));
    lease.ensureHeld();
    assertThat(lease.isHeld()).isTrue();
    assertThat(lease.timeLeft()).as("timeLeft() of a held lease").isPositive();
    lease.close();
    assertThat(catchThrowable(lease::ensureHeld))
        .as("ensureHeld() after the lease is gone")
        .isInstanceOf(LockLostException.class);
    assertThat(catchThrowable(lease::ensureHeld))
        .as("ensureHeld() keeps failing")
        .isInstanceOf(LockLostException.class);
    assertThat(lease.isHeld()).as("isHeld() after the lease is gone").isFalse();
    assertThat(lease.timeLeft()).as("timeLeft() after the lease is gone").isZero();
    lease.close();

    List<LockService> clients = clients();
    String key = key();
    Duration wait = settings().scaled(Duration.ofSeconds(10));
    Lease orphan = clients.get(0).acquire(key, wait).orElseThrow(() -> timedOut(key, wait));
    clients.get(0).close();
    assertThat(catchThrowable(orphan::ensureHeld))
        .as("ensureHeld() after the holder's lock client was closed")
        .isInstanceOf(LockLostException.class);
    Optional<Lease> next = clients.get(1).acquire(key, wait);
    assertThat(next).as("closing a client releases its leases for others").isPresent();
    next.get().close();
  }

  /**
   * Fencing tokens strictly increase for every new holder of a key: holder after holder on
   * alternating clients, and in acquisition order under contention.
   */
  @Test
  @Order(6)
  @Proves(
      "Fencing tokens strictly increase for every new holder, sequentially and in acquisition order"
          + " under contention.")
  public final void fencingTokensStrictlyIncrease() throws Exception {
    requirePresent(Capability.LOCK);
    List<LockService> clients = clients();
    String key = key();
    Duration wait = settings().scaled(Duration.ofSeconds(60));
    List<Long> tokens = new ArrayList<>();
    for (int i = 0; i < settings().lockIncrements(); i++) {
      try (Lease lease =
          clients
              .get(i % clients.size())
              .acquire(key, wait)
              .orElseThrow(() -> timedOut(key, wait))) {
        tokens.add(lease.fencingToken());
      }
    }
    assertStrictlyIncreasing("sequential holders", tokens);
    List<Long> contended = Collections.synchronizedList(new ArrayList<>());
    int contenders = settings().contenders();
    CyclicBarrier barrier = new CyclicBarrier(contenders);
    ExecutorService threads = Executors.newFixedThreadPool(contenders);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int c = 0; c < contenders; c++) {
        LockService client = clients.get(c % clients.size());
        futures.add(
            threads.submit(
                () -> {
                  barrier.await(wait.toMillis(), TimeUnit.MILLISECONDS);
                  for (int i = 0; i < 3; i++) {
                    try (Lease lease =
                        client.acquire(key, wait).orElseThrow(() -> timedOut(key, wait))) {
                      contended.add(lease.fencingToken());
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(wait.toMillis() * 2, TimeUnit.MILLISECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(contended.get(0))
        .as("first contended token after the sequential ones")
        .isGreaterThan(tokens.get(tokens.size() - 1));
    assertStrictlyIncreasing("contended holders, in acquisition order", contended);
  }

  /**
   * A holder that released cannot release the next holder's lease: closing its stale lease again,
   * or closing its whole client, leaves the new holder holding and others locked out.
   */
  @Test
  @Order(7)
  @Proves(
      "A former holder closing its stale lease or its whole client never releases the new holder's"
          + " lease.")
  public final void nonOwnerCannotRelease() throws Exception {
    requirePresent(Capability.LOCK);
    List<LockService> clients = clients();
    LockService first = clients.get(0);
    String key = key();
    Duration wait = settings().scaled(Duration.ofSeconds(10));
    Duration probe = settings().scaled(Duration.ofMillis(300));
    Lease stale = first.acquire(key, wait).orElseThrow(() -> timedOut(key, wait));
    stale.close();
    Lease owner =
        clients
            .get(1)
            .acquire(key, wait)
            .orElseThrow(() -> new AssertionError("acquire after the first holder released"));
    stale.close();
    assertThat(owner.isHeld()).as("the owner after a stale lease was closed again").isTrue();
    owner.ensureHeld();
    Optional<Lease> intruder = clients.get(2).acquire(key, probe);
    intruder.ifPresent(this::closeQuietly);
    assertThat(intruder).as("a third client must not get the key after a stale close").isEmpty();
    first.close();
    assertThat(owner.isHeld()).as("the owner after the former holder's client closed").isTrue();
    intruder = clients.get(2).acquire(key, probe);
    intruder.ifPresent(this::closeQuietly);
    assertThat(intruder)
        .as("a third client must not get the key after the former holder's client" + " closed")
        .isEmpty();
    owner.close();
  }

  private List<LockService> clients() throws IOException {
    List<LockService> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      clients.add(openLock());
    }
    return clients;
  }

  private String key() {
    return "conformance."
        + checkName().substring(checkName().indexOf('.') + 1)
        + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  private static AssertionError timedOut(String key, Duration wait) {
    return new AssertionError(
        "acquire("
            + key
            + ") of a key that is free or about to be freed timed out after "
            + wait.toSeconds()
            + " s");
  }

  private void closeQuietly(Lease lease) {
    try {
      lease.close();
    } catch (IOException e) {
      // The check already fails because the lease was granted; the release error adds nothing.
    }
  }

  private static void assertStrictlyIncreasing(String what, List<Long> tokens) {
    for (int i = 1; i < tokens.size(); i++) {
      assertThat(tokens.get(i))
          .as("%s: fencing token #%d after %d; all tokens %s", what, i, tokens.get(i - 1), tokens)
          .isGreaterThan(tokens.get(i - 1));
    }
  }

  /** A counter that is deliberately not atomic: a broken lock loses increments. */
  private static final class Counter {
    volatile int value;
  }
}
