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
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Four writer JVMs on a blind-put store (Lockstep's S3 store with {@code s3.conditional-writes =
 * false}: no conditional create, a plain PUT overwrites) under each {@code lockstep-*} lock: every
 * acknowledged commit is in the table, one snapshot per commit.
 */
class LockedCommitTest {

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
    appendUnder(LockBackends.zookeeper(zookeeper.getConnectString()));
  }

  @Test
  void lockstepJdbcOnMariaDb() throws Exception {
    appendUnder(LockBackends.jdbc(LockBackends.MARIADB_URL, "root", "30 s"));
  }

  @Test
  void lockstepJdbcOnPostgreSql() throws Exception {
    appendUnder(LockBackends.jdbc(LockBackends.POSTGRESQL_URL, "postgres", "30 s"));
  }

  @Test
  void lockstepHive() throws Exception {
    appendUnder(LockBackends.hive(metastore));
  }

  private static void appendUnder(Map<String, String> lock) throws Exception {
    Map<String, String> options = new HashMap<>(LockBackends.blindStore(S3Warehouse.options(server)));
    options.putAll(lock);
    PaimonTables.create(options, "db", "t");

    Outcome outcome = ConcurrentAppends.run(ClassPath.LOCKSTEP, LostCommitTest.WRITERS,
        LostCommitTest.COMMITS, options, "db", "t");

    assertThat(outcome.errors()).isEmpty();
    assertThat(outcome.ackedCount()).isEqualTo(LostCommitTest.WRITERS * LostCommitTest.COMMITS);
    assertThat(PaimonTables.rows(options, "db", "t")).isEqualTo(outcome.acked());
    assertThat(PaimonTables.snapshotFiles(options, "db", "t"))
        .isEqualTo(LostCommitTest.WRITERS * LostCommitTest.COMMITS);
  }
}
