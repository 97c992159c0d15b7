package dev.lockstep.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.lock.hive.testing.TestMetastore;
import dev.lockstep.paimon.testing.ConcurrentAppends;
import dev.lockstep.paimon.testing.ConcurrentAppends.ClassPath;
import dev.lockstep.paimon.testing.ConcurrentAppends.Outcome;
import dev.lockstep.paimon.testing.LockBackends;
import dev.lockstep.paimon.testing.PaimonTables;
import dev.lockstep.paimon.testing.S3Warehouse;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Four writer JVMs on a blind-put store (Lockstep's S3 store with {@code s3.conditional-writes =
 * false}: no conditional create, a plain PUT overwrites) under each {@code lockstep-*} lock, each
 * appending {@code lockstep.paimon.commits} one-row commits (default 200, the size): every
 * commit acknowledged, every acknowledged row in the table once, one snapshot per commit.
 *
 * <p>The servers are shared by the four runs (one s3proxy, one ZooKeeper, one metastore; each run a
 * fresh warehouse and, for JDBC, a fresh lock table). The locks' timeouts are generous (a starved
 * machine must not expire a session: that is {@code LeaseLossTest}'s subject). The runs go one
 * after another: run at the same time (16 writer JVMs) they were no faster on two cores, the work
 * being CPU-bound (see the README).
 */
class LockedCommitTest {

  static final int WRITERS = LostCommitTest.WRITERS;
  static final int COMMITS = LostCommitTest.COMMITS;

  private static S3ProxyServer server;
  private static TestingServer zookeeper;
  private static TestMetastore metastore;

  /**
   * The metastore starts first: HikariCP (the JDBC lock's pool) sets the JVM-wide {@code
   * DriverManager} login timeout, too short for Derby to create the metastore's database.
   */
  @BeforeAll
  static void start() throws Exception {
    metastore = TestMetastore.shared();
    server = S3ProxyServer.start();
    zookeeper = new TestingServer(true);
  }

  @AfterAll
  static void stop() throws Exception {
    if (zookeeper != null) {
      zookeeper.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void lockstepZookeeper() throws Exception {
    Map<String, String> lock = new HashMap<>(LockBackends.zookeeper(zookeeper.getConnectString()));
    lock.put("lock.zookeeper.session-timeout", "30 s");
    lock.put("lock.zookeeper.connection-timeout", "15 s");
    appendUnder("lockstep-zookeeper", lock);
  }

  @Test
  void lockstepJdbcOnMariaDb() throws Exception {
    appendUnder(
        "lockstep-jdbc MariaDB", LockBackends.jdbc(LockBackends.MARIADB_URL, "root", "30 s"));
  }

  @Test
  void lockstepJdbcOnPostgreSql() throws Exception {
    appendUnder(
        "lockstep-jdbc PostgreSQL",
        LockBackends.jdbc(LockBackends.POSTGRESQL_URL, "postgres", "30 s"));
  }

  @Test
  void lockstepHive() throws Exception {
    appendUnder("lockstep-hive", LockBackends.hive(metastore));
  }

  private static void appendUnder(String name, Map<String, String> lock) throws Exception {
    Map<String, String> options =
        new HashMap<>(LockBackends.blindStore(S3Warehouse.options(server)));
    options.putAll(lock);
    PaimonTables.create(options, "db", "t");

    long started = System.nanoTime();
    Outcome outcome =
        ConcurrentAppends.run(ClassPath.LOCKSTEP, WRITERS, COMMITS, options, "db", "t");
    long seconds = (System.nanoTime() - started) / 1_000_000_000;

    Map<Integer, Set<Integer>> rows = PaimonTables.rows(options, "db", "t");
    long rowsRead = PaimonTables.rowsRead(options, "db", "t");
    int snapshots = PaimonTables.snapshotFiles(options, "db", "t");
    System.out.printf(
        "%s, blind store, %d JVMs x %d commits: %d acknowledged, %d failed, %d rows"
            + " read (%d distinct), %d snapshots, %d s%n",
        name,
        WRITERS,
        COMMITS,
        outcome.ackedCount(),
        outcome.errors().size(),
        rowsRead,
        PaimonTables.rowCount(rows),
        snapshots,
        seconds);
    assertThat(outcome.errors()).isEmpty();
    assertThat(outcome.ackedCount()).isEqualTo(WRITERS * COMMITS);
    assertThat(rows).isEqualTo(outcome.acked());
    assertThat(rowsRead).as("rows read, duplicates included").isEqualTo(WRITERS * COMMITS);
    assertThat(snapshots).isEqualTo(WRITERS * COMMITS);
  }
}
