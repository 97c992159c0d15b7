package dev.lockstep.paimon.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.lock.LockLostException;
import dev.lockstep.lock.jdbc.JdbcCatalogLockFactory;
import dev.lockstep.paimon.lock.LeasedRunner;
import dev.lockstep.paimon.testing.LockBackends;
import dev.lockstep.paimon.testing.S3Warehouse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The snapshot write on a blind-put store inside a {@code lockstep-*} lock, step by step: it writes
 * only while the lease is held. The lease is taken away for real (its row deleted in MariaDB, as an
 * operator or a takeover after the TTL would), between Paimon's existence check and the write.
 */
class AtomicWriteUnderLeaseTest {

  private static S3ProxyServer server;
  private static Map<String, String> options;
  private static FileIO store;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    options = new HashMap<>(LockBackends.blindStore(S3Warehouse.options(server)));
    options.putAll(LockBackends.jdbc(LockBackends.MARIADB_URL, "root", "30 s"));
    Path root = Path.of(options.get("warehouse"));
    store = LockstepStores.forPath(StoreKind.S3, root, options);
    assertThat(store).as("the blind-put store").isNotInstanceOf(SupportsAtomicCreate.class);
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static LeasedRunner runner() throws Exception {
    return LeasedRunner.open(
        "lockstep-jdbc", "'lock.jdbc.url'", new JdbcCatalogLockFactory(), options);
  }

  @Test
  void underAHeldLeaseTheFirstWriteWinsAndTheSecondIsTold() throws Exception {
    Path snapshot = Path.of(options.get("warehouse") + "/held/snapshot-1");
    try (LeasedRunner runner = runner()) {
      assertThat(
              runner.run(
                  "db",
                  "held",
                  () -> AtomicWrite.write(store, StoreKind.S3, snapshot, bytes("first"), options)))
          .isTrue();
      assertThat(
              runner.run(
                  "db",
                  "held",
                  () -> AtomicWrite.write(store, StoreKind.S3, snapshot, bytes("second"), options)))
          .isFalse();
    }
    try (var in = store.newInputStream(snapshot)) {
      assertThat(in.readAllBytes()).isEqualTo(bytes("first"));
    }
  }

  @Test
  void aLeaseLostBeforeTheWriteWritesNothingAndTheLockThrows() throws Exception {
    Path snapshot = Path.of(options.get("warehouse") + "/lost/snapshot-1");
    try (LeasedRunner runner = runner()) {
      assertThatThrownBy(
              () ->
                  runner.run(
                      "db",
                      "lost",
                      () -> {
                        takeAwayEveryLease();
                        return AtomicWrite.write(
                            store, StoreKind.S3, snapshot, bytes("late"), options);
                      }))
          .isInstanceOf(LockLostException.class);
    }
    assertThat(store.exists(snapshot)).as("nothing written under the lost lease").isFalse();
  }

  @Test
  void aLeaseLostDuringTheCallableNeverReturnsItsResult() throws Exception {
    try (LeasedRunner runner = runner()) {
      assertThatThrownBy(
              () ->
                  runner.run(
                      "db",
                      "result",
                      () -> {
                        takeAwayEveryLease();
                        return "committed";
                      }))
          .isInstanceOf(LockLostException.class);
    }
  }

  private static void takeAwayEveryLease() throws Exception {
    try (Connection admin = DriverManager.getConnection(LockBackends.MARIADB_URL, "root", "");
        Statement statement = admin.createStatement()) {
      statement.executeUpdate("DELETE FROM " + options.get("lock.jdbc.table"));
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
