package dev.lockstep.bench.jmh;

import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.lock.hive.testing.TestMetastore;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One uncontended lock acquire + release through the backend's {@link LockService}, opened by
 * {@code lock.type} as a catalog opens it:
 *
 * <ul>
 *   <li>{@code zookeeper}: curator-test TestingServer in this JVM.
 *   <li>{@code mariadb}: the machine's MariaDB, 127.0.0.1:3306, database {@code test}, user root.
 *   <li>{@code postgresql}: the machine's PostgreSQL, 127.0.0.1:5432, database {@code test}, user
 *       postgres.
 *   <li>{@code hive}: a Hive Metastore 4.0.1 in this JVM on embedded Derby in a temporary
 *       directory: lock-hive's {@link TestMetastore} (its test-jar) with the server's default lock
 *       timeout and no housekeeper, calls taken one at a time (one caller here, so that costs
 *       nothing).
 * </ul>
 *
 * A server that cannot be reached fails the benchmark; nothing is skipped.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LockBenchmark {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final String MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test";
  private static final String POSTGRESQL_URL = "jdbc:postgresql://127.0.0.1:5432/test";

  @Param({"zookeeper", "mariadb", "postgresql", "hive"})
  public String backend;

  private TestingServer zookeeper;
  private Path metastoreDirectory;
  private TestMetastore metastore;
  private LockService service;
  private String key;
  private String jdbcTable;

  @Setup(Level.Trial)
  public void open() throws Exception {
    Map<String, String> options = new HashMap<>();
    options.put(LockOptions.LOCK_ENABLED, "true");
    options.put(
        LockOptions.LOCK_TYPE,
        backend.equals("mariadb") || backend.equals("postgresql") ? "jdbc" : backend);
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    key = "bench.t_" + suffix;
    switch (backend) {
      case "zookeeper":
        zookeeper = new TestingServer(true);
        options.put("lock.zookeeper.connect-string", zookeeper.getConnectString());
        break;
      case "mariadb":
      case "postgresql":
        jdbcTable = "lockstep_jmh_" + suffix;
        options.put("lock.jdbc.url", jdbcUrl());
        options.put("lock.jdbc.user", jdbcUser());
        options.put("lock.jdbc.table", jdbcTable);
        break;
      case "hive":
        metastoreDirectory = ScratchDirectory.create("lockstep-bench-hms-");
        metastore = TestMetastore.start(metastoreDirectory);
        options.put("uri", metastore.uri());
        break;
      default:
        throw new IllegalArgumentException(
            "Unknown backend '" + backend + "'; known: zookeeper," + " mariadb, postgresql, hive");
    }
    service = LockServiceDiscovery.open(options);
  }

  @Benchmark
  public long acquireAndRelease() throws IOException, InterruptedException {
    Lease lease =
        service
            .acquire(key, TIMEOUT)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "No lease on uncontended key "
                            + key
                            + " within "
                            + TIMEOUT
                            + " from "
                            + backend));
    try {
      return lease.fencingToken();
    } finally {
      lease.close();
    }
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    service.close();
    if (jdbcTable != null) {
      try (Connection c = DriverManager.getConnection(jdbcUrl(), jdbcUser(), "");
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + jdbcTable);
      }
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
    if (metastore != null) {
      metastore.close();
      ScratchDirectory.delete(metastoreDirectory);
    }
  }

  private String jdbcUrl() {
    return backend.equals("mariadb") ? MARIADB_URL : POSTGRESQL_URL;
  }

  private String jdbcUser() {
    return backend.equals("mariadb") ? "root" : "postgres";
  }
}
