package dev.lockstep.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.lock.Lease;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Mutual exclusion, fencing, ownership and key handling of the JDBC lock, on the machine's real
 * MariaDB (through both drivers) and PostgreSQL.
 */
class JdbcLockExclusionTest {

  private static final int HOLDERS = 8;
  private static final int INCREMENTS = 200;

  private final String table = TestDatabase.freshTable();
  private final List<JdbcLockService> services = new CopyOnWriteArrayList<>();
  private TestDatabase database;

  @AfterEach
  void closeAndDrop() throws IOException, SQLException {
    for (JdbcLockService service : services) {
      service.close();
    }
    if (database != null) {
      database.dropTable(table);
    }
  }

  private JdbcLockService open(TestDatabase db, Map<String, String> overrides) throws IOException {
    database = db;
    Map<String, String> options = db.options(table);
    options.putAll(overrides);
    JdbcLockService service = JdbcLockService.open(options);
    services.add(service);
    return service;
  }

  private JdbcLockService open(TestDatabase db) throws IOException {
    return open(db, Map.of());
  }

  /**
   * A non-atomic counter: read, yield, write (volatile only so that the hand-over through the
   * database is visible to the next thread). Only mutual exclusion keeps it exact; the token of the
   * holder that wrote value v lands in slot v, so two holders at once also leave an empty slot.
   */
  private static final class Counter {
    volatile int value;
    final AtomicLongArray tokens = new AtomicLongArray(HOLDERS * INCREMENTS);
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void eightHoldersIncrementingTwoHundredTimesCountExactly1600(TestDatabase db) throws Exception {
    List<JdbcLockService> clients = new ArrayList<>();
    for (int i = 0; i < HOLDERS; i++) {
      clients.add(
          open(db, Map.of("lock-check-max-sleep", "20 ms", JdbcLockOptions.POOL_SIZE, "2")));
    }
    Counter counter = new Counter();
    CyclicBarrier start = new CyclicBarrier(HOLDERS);
    ExecutorService threads = Executors.newFixedThreadPool(HOLDERS);
    long began = System.nanoTime();
    try {
      List<Future<?>> holders = new ArrayList<>();
      for (JdbcLockService client : clients) {
        holders.add(
            threads.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < INCREMENTS; i++) {
                    Lease lease =
                        client
                            .acquire("db.counter", TestTiming.scaled(Duration.ofMinutes(1)))
                            .orElseThrow(() -> new AssertionError("acquire timed out"));
                    try {
                      lease.ensureHeld();
                      int seen = counter.value;
                      Thread.yield();
                      counter.value = seen + 1;
                      counter.tokens.set(seen, lease.fencingToken());
                    } finally {
                      lease.close();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> holder : holders) {
        holder.get(TestTiming.scaled(Duration.ofMinutes(3)).toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    System.out.printf(
        "%s: %d x %d increments under the lock in %d ms%n",
        db, HOLDERS, INCREMENTS, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
    assertThat(counter.value).isEqualTo(HOLDERS * INCREMENTS);
    for (int i = 1; i < counter.tokens.length(); i++) {
      assertThat(counter.tokens.get(i))
          .as("fencing token of holder %d after %d", i, i - 1)
          .isGreaterThan(counter.tokens.get(i - 1));
    }
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void acquireReturnsEmptyAfterTheTimeoutWhileAnotherHolds(TestDatabase db) throws Exception {
    JdbcLockService first = open(db);
    JdbcLockService second = open(db);
    Lease held = first.acquire("db.t", Duration.ZERO).orElseThrow();

    assertThat(second.acquire("db.t", Duration.ZERO)).isEmpty();
    long began = System.nanoTime();
    assertThat(second.acquire("db.t", Duration.ofMillis(300))).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - began))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(held.isHeld()).isTrue();

    held.close();
    held.close(); // idempotent
    Lease next = second.acquire("db.t", Duration.ZERO).orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    assertThatThrownBy(held::ensureHeld)
        .isInstanceOf(dev.lockstep.lock.LockLostException.class)
        .hasMessageContaining("released");
    assertThat(held.timeLeft()).isZero();
    next.close();
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aReleaseOrRenewalWithAStaleOwnerIdChangesNothing(TestDatabase db) throws Exception {
    JdbcLockService service = open(db);
    Lease earlier = service.acquire("db.t", Duration.ZERO).orElseThrow();
    String staleOwner = ((JdbcLease) earlier).owner();
    earlier.close();
    JdbcLease current = (JdbcLease) service.acquire("db.t", Duration.ZERO).orElseThrow();
    LockKey key = LockKey.of("db.t");
    LockTable lockTable = service.table();

    try (Connection connection = service.connection()) {
      LockTable.Row before = lockTable.read(connection, key);
      assertThat(before.owner()).isEqualTo(current.owner()).isNotEqualTo(staleOwner);
      for (String stale : List.of(staleOwner, "someone-else", current.owner() + " ")) {
        assertThat(lockTable.renew(connection, key.hash(), stale))
            .as("renew as %s", stale)
            .isZero();
        assertThat(lockTable.release(connection, key.hash(), stale))
            .as("release as %s", stale)
            .isZero();
      }
      LockTable.Row after = lockTable.read(connection, key);
      assertThat(after.owner()).isEqualTo(before.owner());
      assertThat(after.fencingToken()).isEqualTo(before.fencingToken());
      assertThat(after.expiresAtMicros()).isEqualTo(before.expiresAtMicros());
    }
    earlier.close(); // a second close of the earlier lease does nothing either
    current.ensureHeld();
    assertThat(open(db).acquire("db.t", Duration.ZERO))
        .as("still held by the current owner")
        .isEmpty();
    current.close();
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void keysAreExactWhateverTheyHold(TestDatabase db) throws Exception {
    JdbcLockService service = open(db);
    JdbcLockService other = open(db);
    String longPrefix = "k".repeat(6000);
    List<String> keys =
        List.of(
            "db.t",
            "db.T",
            "it's \"quoted\"; DROP TABLE " + table + "; --",
            "表_😀_ключ.таблица",
            longPrefix + "x",
            longPrefix + "y",
            "trailing",
            "trailing ");
    List<Lease> leases = new ArrayList<>();
    for (String key : keys) {
      Optional<Lease> lease = service.acquire(key, Duration.ZERO);
      assertThat(lease).as("key %.40s is its own lock", key).isPresent();
      leases.add(lease.get());
    }
    try (Connection connection = service.connection()) {
      for (String key : keys) {
        assertThat(other.acquire(key, Duration.ZERO)).as("%.40s is held", key).isEmpty();
        assertThat(service.table().read(connection, LockKey.of(key)).key()).isEqualTo(key);
      }
    }
    for (Lease lease : leases) {
      lease.close();
    }
    assertThatThrownBy(() -> service.acquire("x".repeat(LockKey.MAX_KEY_BYTES + 1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most");
    assertThatThrownBy(() -> service.acquire("a\0b", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NUL");
    assertThatThrownBy(() -> service.acquire("", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void theExpiryIsTheDatabaseClockPlusTheTtlAndTimeLeftNeverExceedsIt(TestDatabase db)
      throws Exception {
    JdbcLockService service = open(db);
    JdbcLease lease = (JdbcLease) service.acquire("db.t", Duration.ZERO).orElseThrow();
    long ttlMicros = TestDatabase.SHORT_TTL.toNanos() / 1000;
    try (Connection connection = service.connection()) {
      LockTable.Row row = lockRow(service, connection);
      assertThat(row.expiresAtMicros() - row.acquiredAtMicros()).isEqualTo(ttlMicros);
      assertThat(lease.timeLeft())
          .isLessThanOrEqualTo(TestDatabase.SHORT_TTL)
          .isGreaterThan(TestDatabase.SHORT_TTL.minus(TestDatabase.slack()));

      Thread.sleep(100);
      lease.ensureHeld();
      LockTable.Row renewed = lockRow(service, connection);
      assertThat(renewed.expiresAtMicros()).isGreaterThan(row.expiresAtMicros());
      assertThat(renewed.expiresAtMicros() - renewed.nowMicros()).isLessThanOrEqualTo(ttlMicros);
      assertThat(lease.timeLeft().toNanos() / 1000)
          .isLessThanOrEqualTo(renewed.expiresAtMicros() - renewed.nowMicros());
    }
    lease.close();
  }

  private static LockTable.Row lockRow(JdbcLockService service, Connection connection)
      throws SQLException {
    return service.table().read(connection, LockKey.of("db.t"));
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void theTableIsCreatedWhenMissingAndSharedByLaterClients(TestDatabase db) throws Exception {
    JdbcLockService first = open(db);
    Lease lease = first.acquire("db.t", Duration.ZERO).orElseThrow();
    JdbcLockService second = open(db);
    assertThat(second.acquire("db.t", Duration.ZERO)).isEmpty();
    lease.close();
    assertThat(second.acquire("db.t", Duration.ZERO)).isPresent();
    assertThat(second.holderDeathBound()).isEqualTo(TestDatabase.SHORT_TTL);
  }
}
