package dev.lockstep.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.testing.CapabilityHidingFileIO;
import dev.lockstep.testing.TestTiming;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How a JDBC lease ends when its holder cannot end it: the holder process halts, or an operator
 * kills the holder's database session. On the machine's real MariaDB (both drivers) and PostgreSQL.
 */
class JdbcLeaseLossTest {

  private final String table = TestDatabase.freshTable();
  private final List<AutoCloseable> toClose = new CopyOnWriteArrayList<>();
  private TestDatabase database;

  @TempDir java.nio.file.Path tempDir;

  @AfterEach
  void closeAndDrop() throws Exception {
    for (AutoCloseable closeable : toClose) {
      closeable.close();
    }
    if (database != null) {
      database.dropTable(table);
    }
  }

  private JdbcLockService open(TestDatabase db) throws IOException {
    database = db;
    JdbcLockService service = JdbcLockService.open(db.options(table));
    toClose.add(service);
    return service;
  }

  private static Duration ttlPlusOneRetry() {
    return TestDatabase.SHORT_TTL.plus(TestDatabase.RETRY);
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aHolderProcessThatHaltsIsReplacedWithinTheTtlPlusOneRetry(TestDatabase db) throws Exception {
    JdbcLockService waiter = open(db);
    // Held long enough for heartbeats to renew: the row must expire from the last renewal.
    Process child =
        startChild(
            db,
            HaltingHolder.class,
            "db.halting",
            Long.toString(TestDatabase.SHORT_TTL.toMillis()));
    List<String> output = new ArrayList<>();
    try (BufferedReader lines = stdout(child)) {
      long childToken = Long.parseLong(readUntil(lines, "HELD ", output).substring(5));
      assertThat(waiter.acquire("db.halting", Duration.ZERO))
          .as("the key is held by the child process")
          .isEmpty();

      readUntil(lines, "HALT", output);
      long halted = System.nanoTime();
      assertThat(
              child.waitFor(
                  TestTiming.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS))
          .as("child exited")
          .isTrue();
      Lease lease =
          waiter
              .acquire("db.halting", TestDatabase.SHORT_TTL.multipliedBy(3))
              .orElseThrow(() -> new AssertionError("the dead holder's lock was never freed"));
      Duration took = Duration.ofNanos(System.nanoTime() - halted);
      System.out.printf(
          "%s: holder halted; the next process acquired after %d ms (bound: lease-ttl"
              + " %d ms + one retry %d ms)%n",
          db, took.toMillis(), TestDatabase.SHORT_TTL.toMillis(), TestDatabase.RETRY.toMillis());
      assertThat(took).isLessThanOrEqualTo(ttlPlusOneRetry().plus(TestDatabase.slack()));
      assertThat(lease.fencingToken()).isGreaterThan(childToken);
      lease.close();
    } finally {
      child.destroyForcibly();
    }
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aHolderFrozenLongerThanTheTtlLearnsItLostTheLeaseAndTouchesNothing(TestDatabase db)
      throws Exception {
    JdbcLockService next = open(db);
    Process child = startChild(db, PausableHolder.class, "db.frozen");
    List<String> output = new ArrayList<>();
    try (BufferedReader lines = stdout(child);
        Writer commands = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
      long childToken = Long.parseLong(readUntil(lines, "HELD ", output).substring(5));
      send(commands, "CHECK");
      assertThat(answer(lines, output)).as("before the pause").isEqualTo("STILL-HELD");

      signal(child, "STOP"); // a GC pause or VM stall: no heartbeat, no release
      JdbcLease taken =
          (JdbcLease)
              next.acquire("db.frozen", TestDatabase.SHORT_TTL.multipliedBy(3))
                  .orElseThrow(() -> new AssertionError("the frozen holder's row never expired"));
      assertThat(taken.fencingToken()).isGreaterThan(childToken);
      signal(child, "CONT");

      send(commands, "CHECK");
      String afterPause = answer(lines, output);
      System.out.printf("%s: frozen holder after the pause: %s%n", db, afterPause);
      assertThat(afterPause).as("after the pause").startsWith("LOST ");
      send(commands, "CLOSE"); // its release names its own, stale owner id
      readUntil(lines, "CLOSED", output);
      assertThat(
              child.waitFor(
                  TestTiming.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS))
          .isTrue();
      taken.ensureHeld();
      try (Connection connection = next.connection()) {
        LockTable.Row row = next.table().read(connection, LockKey.of("db.frozen"));
        assertThat(row.owner()).isEqualTo(taken.owner());
        assertThat(row.fencingToken()).isEqualTo(taken.fencingToken());
      }
      taken.close();
    } finally {
      signal(child, "CONT");
      child.destroyForcibly();
    }
  }

  private Process startChild(TestDatabase db, Class<?> main, String... args) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                childClassPath(),
                main.getName()));
    command.addAll(List.of(args));
    db.options(table).forEach((k, v) -> command.add(k + "=" + v));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  private static BufferedReader stdout(Process child) {
    return new BufferedReader(
        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
  }

  private static void send(Writer commands, String command) throws IOException {
    commands.write(command + "\n");
    commands.flush();
  }

  private static void signal(Process child, String signal)
      throws IOException, InterruptedException {
    if (child.isAlive()) {
      new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid()))
          .inheritIO()
          .start()
          .waitFor();
    }
  }

  private static String childClassPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank()
        ? surefire
        : System.getProperty("java.class.path");
  }

  /** The holder's answer to CHECK, skipping its log lines. */
  private static String answer(BufferedReader lines, List<String> output) throws IOException {
    String line;
    while ((line = lines.readLine()) != null) {
      output.add(line);
      if (line.startsWith("STILL-HELD") || line.startsWith("LOST ")) {
        return line;
      }
    }
    return fail("The holder process ended without answering:\n" + String.join("\n", output));
  }

  private static String readUntil(BufferedReader lines, String prefix, List<String> output)
      throws IOException {
    String line;
    while ((line = lines.readLine()) != null) {
      output.add(line);
      if (line.startsWith(prefix)) {
        return line;
      }
    }
    return fail(
        "The holder process ended before printing '" + prefix + "':\n" + String.join("\n", output));
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aKilledSessionLosesTheLeaseAndItsStaleReleaseLeavesTheNextHolderAlone(TestDatabase db)
      throws Exception {
    JdbcLockService holderService = open(db);
    JdbcLockService nextService = open(db);
    JdbcLease holder = (JdbcLease) holderService.acquire("db.t", Duration.ZERO).orElseThrow();
    holder.ensureHeld();

    db.killSession(holder.sessionId());
    assertThatThrownBy(holder::ensureHeld)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("db.t");
    assertThat(holder.isHeld()).isFalse();
    assertThat(holder.timeLeft()).isZero();
    assertThatThrownBy(holder::ensureHeld)
        .as("and forever after")
        .isInstanceOf(LockLostException.class);

    // Nobody renews the row any more: it expires within the TTL and the next holder takes it over.
    long began = System.nanoTime();
    JdbcLease next =
        (JdbcLease)
            nextService.acquire("db.t", TestDatabase.SHORT_TTL.multipliedBy(3)).orElseThrow();
    assertThat(Duration.ofNanos(System.nanoTime() - began))
        .isLessThanOrEqualTo(ttlPlusOneRetry().plus(TestDatabase.slack()));
    assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());

    // The killed holder's release, on a fresh connection, names its own (now stale) owner id.
    holder.close();
    next.ensureHeld();
    try (Connection connection = nextService.connection()) {
      assertThat(nextService.table().read(connection, LockKey.of("db.t")).owner())
          .isEqualTo(next.owner());
    }
    assertThat(holderService.acquire("db.t", Duration.ZERO)).isEmpty();
    next.close();
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aRenewalThatFindsTheRowTakenOverLosesTheLease(TestDatabase db) throws Exception {
    JdbcLockService holderService = open(db);
    JdbcLockService nextService = open(db);
    JdbcLease holder = (JdbcLease) holderService.acquire("db.t", Duration.ZERO).orElseThrow();
    // The database sees the lease expired (as after a holder pause longer than the TTL), while the
    // holder's own clock still gives it time: only the renewal's zero row count can tell.
    try (Connection admin = db.admin();
        PreparedStatement expire =
            admin.prepareStatement(
                "UPDATE " + table + " SET expires_at_us = 0 WHERE lock_hash = ?")) {
      expire.setString(1, LockKey.of("db.t").hash());
      assertThat(expire.executeUpdate()).isEqualTo(1);
    }
    JdbcLease next = (JdbcLease) nextService.acquire("db.t", Duration.ZERO).orElseThrow();
    assertThat(holder.isHeld()).as("the holder does not know yet").isTrue();

    assertThatThrownBy(holder::ensureHeld)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("taken over");
    assertThat(holder.isHeld()).isFalse();
    holder.close();
    next.ensureHeld();
    assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
    next.close();
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void theHeartbeatAloneNoticesAKilledSession(TestDatabase db) throws Exception {
    JdbcLockService service = open(db);
    JdbcLease lease = (JdbcLease) service.acquire("db.t", Duration.ZERO).orElseThrow();
    db.killSession(lease.sessionId());

    // One heartbeat period (TTL/3) plus its statement timeout (TTL/3), with slack.
    long deadline =
        System.nanoTime()
            + TestDatabase.SHORT_TTL
                .multipliedBy(2)
                .dividedBy(3)
                .plus(TestDatabase.slack())
                .toNanos();
    while (lease.isHeld() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(lease.isHeld()).as("lost without anyone calling ensureHeld").isFalse();
    assertThat(lease.timeLeft()).isZero();
    assertThatThrownBy(lease::ensureHeld).isInstanceOf(LockLostException.class);
    lease.close();
    assertThat(service.acquire("db.t", Duration.ZERO)).as("the release freed the row").isPresent();
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.class)
  void aCommitWhoseLeaseSessionIsKilledDoesNotLand(TestDatabase db) throws Exception {
    JdbcLockService service = open(db);
    FileIO store = new CapabilityHidingFileIO(new LocalFileIO());
    Path snapshots = Path.of(tempDir.resolve("db.db/t/snapshot").toString());
    Map<String, String> options = db.options(table);
    options.put(CommitOptions.COMMIT_WRITE_ATTEMPTS, "1");
    byte[] content = "{\"id\":1,\"commitId\":\"killed\"}".getBytes(StandardCharsets.UTF_8);

    SnapshotCommitter killed =
        SnapshotCommitter.builder(store, snapshots, "db.t")
            .options(CommitOptions.from(options))
            .lockService(new SessionKillingLockService(service, db))
            .build();
    assertThat(killed.strategy()).isEqualTo("lock (plain write)");
    assertThatThrownBy(() -> killed.commit(1, SnapshotContent.of(content)))
        .isInstanceOf(IOException.class)
        .satisfies(e -> assertThat(hasCause(e, SQLException.class)).isTrue())
        .satisfies(e -> assertThat(hasCause(e, LockLostException.class)).isTrue());
    assertThat(killed.log().exists(1)).as("snapshot-1 after the killed commit").isFalse();
    assertThat(store.list(snapshots)).as("nothing landed").isEmpty();
    killed.close();

    // The same commit under a healthy session lands: the test above could have seen a landing.
    byte[] healthyContent = "{\"id\":1,\"commitId\":\"healthy\"}".getBytes(StandardCharsets.UTF_8);
    try (SnapshotCommitter healthy =
        SnapshotCommitter.builder(store, snapshots, "db.t").options(options).open()) {
      assertThat(healthy.commit(1, SnapshotContent.of(healthyContent)).outcome())
          .isEqualTo(CommitOutcome.COMMITTED);
      assertThat(healthy.log().read(1)).isEqualTo(healthyContent);
    }
  }

  private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
