package dev.lockstep.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.paimon.testing.ConcurrentAppends;
import dev.lockstep.paimon.testing.ConcurrentAppends.ClassPath;
import dev.lockstep.paimon.testing.LockBackends;
import dev.lockstep.paimon.testing.PaimonTables;
import dev.lockstep.paimon.testing.PausedCommitter;
import dev.lockstep.paimon.testing.S3Warehouse;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A lost lease never reports success. Writer A (a child JVM) is frozen (SIGSTOP, like a long GC
 * pause) inside {@code runWithLock}, right before it writes {@code snapshot-1} on a blind-put
 * store, until its lease is gone: its ZooKeeper session expires on the server, or its JDBC lease
 * row passes its TTL. Writer B then takes the lock and commits {@code snapshot-1}. A is thawed:
 *
 * <ul>
 *   <li>A never writes under the lost lease: {@code snapshot-1} stays B's (without the lease check
 *       A's blind PUT would replace it and B's acknowledged commit would be gone);
 *   <li>A is told either an error or success, and success only when its row is in the table (Paimon
 *       retries after the lock's exception, finds no snapshot of its own, and commits anew under a
 *       new lease);
 *   <li>one snapshot per row, every acknowledged row present.
 * </ul>
 */
class LeaseLossTest {

  private static S3ProxyServer server;
  private static TestingServer zookeeper;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    zookeeper = new TestingServer(true);
  }

  @AfterAll
  static void stop() throws Exception {
    zookeeper.close();
    server.close();
  }

  @Test
  void zookeeperSessionExpiryDuringTheCommit() throws Exception {
    loseTheLeaseDuringTheCommit(LockBackends.zookeeper(zookeeper.getConnectString()));
  }

  @Test
  void jdbcLeaseTakenOverAfterItsTtlDuringTheCommit() throws Exception {
    loseTheLeaseDuringTheCommit(LockBackends.jdbc(LockBackends.MARIADB_URL, "root", "3 s"));
  }

  private static void loseTheLeaseDuringTheCommit(Map<String, String> lock) throws Exception {
    Map<String, String> options =
        new HashMap<>(LockBackends.blindStore(S3Warehouse.options(server)));
    options.putAll(lock);
    PaimonTables.create(options, "db", "t");

    List<String> arguments = new ArrayList<>(List.of("db", "t", "0", "writer-a"));
    options.forEach((key, value) -> arguments.add(key + "=" + value));
    Process a =
        ConcurrentAppends.start(ClassPath.LOCKSTEP, PausedCommitter.class.getName(), arguments);
    List<String> aOutput = new ArrayList<>();
    boolean aAcked;
    try {
      BufferedReader aOut =
          new BufferedReader(new InputStreamReader(a.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = aOut.readLine()) != null && !line.startsWith("PAUSED")) {
        aOutput.add(line);
      }
      assertThat(line).as("writer A's output: %s", aOutput).isEqualTo("PAUSED snapshot-1");
      signal(a, "STOP");

      // B waits for A's lease to end (session timeout / lease TTL), then commits snapshot-1.
      commitAsB(options);
      assertThat(PaimonTables.latestSnapshotId(options, "db", "t")).isEqualTo(1);

      signal(a, "CONT");
      Writer aIn = new OutputStreamWriter(a.getOutputStream(), StandardCharsets.UTF_8);
      aIn.write("RESUME\n");
      aIn.flush();
      while ((line = aOut.readLine()) != null) {
        aOutput.add(line);
      }
      assertThat(a.waitFor(1, TimeUnit.MINUTES)).isTrue();
      assertThat(aOutput).as("writer A's output").contains("DONE");
      aAcked = aOutput.contains("ACK");
    } finally {
      a.destroyForcibly();
    }
    System.out.println(
        lock.get("lock.type")
            + ": writer A after losing its lease: "
            + String.join(" / ", aOutput));

    try (Catalog catalog = PaimonTables.catalog(options)) {
      FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create("db", "t"));
      assertThat(table.snapshotManager().snapshot(1).commitUser()).isEqualTo("writer-b");
    }
    Map<Integer, Set<Integer>> rows = PaimonTables.rows(options, "db", "t");
    assertThat(rows.get(1)).containsExactly(1);
    if (aAcked) {
      assertThat(rows.get(0)).containsExactly(1);
    }
    assertThat(PaimonTables.snapshotFiles(options, "db", "t"))
        .isEqualTo(PaimonTables.rowCount(rows));
  }

  private static void commitAsB(Map<String, String> options) throws Exception {
    try (Catalog catalog = PaimonTables.catalog(options)) {
      StreamWriteBuilder builder =
          catalog
              .getTable(Identifier.create("db", "t"))
              .newStreamWriteBuilder()
              .withCommitUser("writer-b");
      try (StreamTableWrite write = builder.newWrite();
          StreamTableCommit commit = builder.newCommit()) {
        write.write(GenericRow.of(1, 1));
        commit.commit(1, write.prepareCommit(false, 1));
      }
    }
  }

  private static void signal(Process process, String signal) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
    assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
  }
}
