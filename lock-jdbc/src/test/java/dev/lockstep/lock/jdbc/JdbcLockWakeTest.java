package dev.lockstep.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.lock.Lease;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Waiters are woken by the release (issue 25), on the machine's real MariaDB (both drivers) and
 * PostgreSQL, and the database's named lock they queue on never decides who holds the key.
 *
 * <p>Invariants, not timings: a waiter that queued while the key was held gets the key before the
 * releasing holder's next acquisition, which starts 100 ms after its release. A waiter that polls
 * with a back-off (the behaviour before issue 25, up to the default 8 s {@code
 * lock-check-max-sleep}) is asleep for about a second at that point of its wait, and wins such a
 * round only when its next poll happens to fall into those 100 ms.
 */
class JdbcLockWakeTest {

  private static final int ROUNDS = 3;

  /** Long enough for a polling waiter's back-off to grow to about a second. */
  private static final Duration HOLD = TestTiming.scaled(Duration.ofSeconds(2));

  private static final Duration PAUSE = Duration.ofMillis(100);

  private final String table = TestDatabase.freshTable();
  private final List<JdbcLockService> services = new CopyOnWriteArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private TestDatabase database;

  @AfterEach
  void closeAndDrop() throws IOException, SQLException, InterruptedException {
    threads.shutdownNow();
    threads.awaitTermination(30, TimeUnit.SECONDS);
    for (JdbcLockService service : services) {
      service.close();
    }
    if (database != null) {
      database.dropTable(table);
    }
  }

  /** A client with the default {@code lock-check-max-sleep} (8 s). */
  private JdbcLockService open(TestDatabase db) throws IOException {
    database = db;
    Map<String, String> options = db.options(table);
    options.remove("lock-check-max-sleep");
    JdbcLockService service = JdbcLockService.open(options);
    services.add(service);
    return service;
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aQueuedWaiterGetsTheKeyBeforeTheReleasingHoldersNextAcquisition(TestDatabase db)
      throws Exception {
    JdbcLockService holder = open(db);
    JdbcLockService waiter = open(db);
    Duration patience = TestTiming.scaled(Duration.ofSeconds(60));
    for (int round = 1; round <= ROUNDS; round++) {
      Lease first = holder.acquire("db.t", patience).orElseThrow();
      Future<Long> waiting =
          threads.submit(
              () -> {
                try (Lease lease = waiter.acquire("db.t", patience).orElseThrow()) {
                  return lease.fencingToken();
                }
              });
      Thread.sleep(HOLD.toMillis());
      assertThat(waiting).as("round %d: the waiter waits while the key is held", round).isNotDone();
      first.close();
      Thread.sleep(PAUSE.toMillis());
      long again;
      try (Lease second = holder.acquire("db.t", patience).orElseThrow()) {
        again = second.fencingToken();
      }
      long woken = waiting.get(patience.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(woken)
          .as(
              "round %d: the waiter's token, between the holder's release (token %d) and its next"
                  + " acquisition %s later (token %d)",
              round, first.fencingToken(), PAUSE, again)
          .isGreaterThan(first.fencingToken())
          .isLessThan(again);
    }
  }

  /**
   * Killing the holder's session frees its named lock at once and wakes the waiter, but the row is
   * still the holder's until it expires: the waiter takes the key only after that expiry, with a
   * larger token.
   */
  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aWaiterWokenByALostSessionStillWaitsForTheRowToExpire(TestDatabase db) throws Exception {
    JdbcLockService holderService = open(db);
    JdbcLockService waiter = open(db);
    JdbcLease holder = (JdbcLease) holderService.acquire("db.t", Duration.ZERO).orElseThrow();
    Future<JdbcLease> waiting =
        threads.submit(
            () ->
                (JdbcLease)
                    waiter
                        .acquire("db.t", TestTiming.scaled(TestDatabase.SHORT_TTL.multipliedBy(10)))
                        .orElseThrow());
    Thread.sleep(TestTiming.scaled(Duration.ofMillis(500)).toMillis());
    db.killSession(holder.sessionId());
    long expiry;
    try (Connection connection = waiter.connection()) {
      // No renewal succeeds after the kill: this is the row's last expiry.
      expiry = waiter.table().read(connection, LockKey.of("db.t")).expiresAtMicros();
    }
    JdbcLease next =
        waiting.get(TestTiming.scaled(Duration.ofSeconds(60)).toMillis(), TimeUnit.MILLISECONDS);
    try (Connection connection = waiter.connection()) {
      LockTable.Row row = waiter.table().read(connection, LockKey.of("db.t"));
      assertThat(row.owner()).isEqualTo(next.owner());
      assertThat(row.acquiredAtMicros())
          .as("taken over only once the killed holder's row had expired")
          .isGreaterThanOrEqualTo(expiry);
    }
    assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
    holder.close();
    next.ensureHeld();
    next.close();
  }

  /**
   * A session that holds a key's named lock without taking the row (a stray client) neither blocks
   * the key nor lets two holders in: waiters fall back to asking the row after each wait.
   */
  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aStrayHolderOfTheNamedLockDecidesNothing(TestDatabase db) throws Exception {
    JdbcLockService first = open(db);
    JdbcLockService second = open(db);
    Duration patience = TestTiming.scaled(Duration.ofSeconds(30));
    try (Connection stray = db.admin()) {
      WakeLock named =
          new WakeLock(
              db == TestDatabase.POSTGRESQL ? JdbcDialect.POSTGRESQL : JdbcDialect.MARIADB,
              table,
              5);
      assertThat(named.await(stray, LockKey.of("db.t"), 0)).isTrue();
      long previous = 0;
      for (int i = 0; i < 3; i++) {
        JdbcLockService holder = i % 2 == 0 ? first : second;
        JdbcLockService other = i % 2 == 0 ? second : first;
        try (Lease lease = holder.acquire("db.t", patience).orElseThrow()) {
          assertThat(lease.fencingToken()).isGreaterThan(previous);
          previous = lease.fencingToken();
          assertThat(other.acquire("db.t", Duration.ZERO)).isEmpty();
        }
      }
      named.release(stray, LockKey.of("db.t"));
    }
  }
}
