package dev.lockstep.bundle.spark;

import static dev.lockstep.bundle.spark.SparkSubmitSession.origin;
import static dev.lockstep.bundle.spark.SparkSubmitSession.requiredJar;
import static dev.lockstep.bundle.spark.SparkSubmitSession.snapshots;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spark/README.md}'s lock example: Spark 3.5.8 in local mode with {@code
 * lockstep-spark-bundle} and {@code lockstep-lock-zookeeper-bundle} as {@code --jars} (nothing else
 * of Lockstep), {@code lock.enabled=true, lock.type=zookeeper}, against a ZooKeeper server in this
 * JVM. The server is Spark's own ZooKeeper 3.6.3 (on Spark's class path with Curator 2.13.0, as in
 * a Spark distribution's {@code jars/}): the bundle's relocated Curator 5 and ZooKeeper 3.9 client
 * run beside them.
 */
class SparkZooKeeperLockBundleIT {

  @TempDir static Path warehouse;
  @TempDir static Path zooKeeperData;

  private static ServerCnxnFactory zooKeeperConnections;
  private static String connectString;
  private static Path sparkBundle;
  private static Path lockBundle;
  private static SparkSubmitSession session;

  @BeforeAll
  static void start() throws Exception {
    ZooKeeperServer server =
        new ZooKeeperServer(zooKeeperData.toFile(), zooKeeperData.toFile(), 2000);
    zooKeeperConnections =
        ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 100);
    zooKeeperConnections.startup(server);
    connectString = "127.0.0.1:" + zooKeeperConnections.getLocalPort();

    sparkBundle = requiredJar("lockstep.bundle.jar");
    lockBundle = requiredJar("lockstep.bundle.zookeeper");
    assertThat(lockBundle.getFileName().toString()).startsWith("lockstep-lock-zookeeper-bundle-");
    Map<String, Path> jars = new LinkedHashMap<>();
    jars.put("lockstep-spark-bundle.jar", sparkBundle);
    jars.put("lockstep-lock-zookeeper-bundle.jar", lockBundle);
    session =
        SparkSubmitSession.launch(
            "lock.type=zookeeper",
            jars,
            Map.of(
                "spark.sql.catalog.lake.warehouse",
                new String[] {"/tmp/lake", warehouse.toString()},
                "spark.sql.catalog.lake.lock.zookeeper.connect-string",
                new String[] {"zk1:2181,zk2:2181,zk3:2181", connectString}));
    assertThat(session.readmeConf)
        .containsEntry("spark.sql.catalog.lake.lock.enabled", "true")
        .containsEntry("spark.sql.catalog.lake.lock.type", "zookeeper");
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (session != null) {
        session.close();
      }
    } finally {
      if (zooKeeperConnections != null) {
        zooKeeperConnections.shutdown();
      }
    }
  }

  @Test
  void theReadmeExampleRunsUnderAZooKeeperLockBesideSparksOwnCuratorAndZooKeeper()
      throws Exception {
    ClassLoader jars = session.jars;
    assertThat(origin(Class.forName("dev.lockstep.spark.LockstepCatalog", false, jars)))
        .isEqualTo(sparkBundle);
    assertThat(
            origin(Class.forName("dev.lockstep.lock.zookeeper.ZooKeeperLockFactory", false, jars)))
        .isEqualTo(lockBundle);
    assertThat(
            origin(
                Class.forName(
                    "dev.lockstep.shaded.zookeeper.org.apache.curator.framework.CuratorFramework",
                    false,
                    jars)))
        .isEqualTo(lockBundle);
    // Spark's own, unrelocated: Curator 2.13.0 and ZooKeeper 3.6.3.
    assertThat(
            origin(Class.forName("org.apache.curator.framework.CuratorFramework", false, jars))
                .getFileName()
                .toString())
        .isEqualTo("curator-framework-2.13.0.jar");
    assertThat(
            origin(Class.forName("org.apache.zookeeper.ZooKeeper", false, jars))
                .getFileName()
                .toString())
        .isEqualTo("zookeeper-3.6.3.jar");

    assertThat(session.runReadmeSqlBlock()).isGreaterThanOrEqualTo(14);
    assertThat(session.rows("SELECT day, id, amount, note FROM lake.shop.orders ORDER BY day, id"))
        .containsExactly(
            "[2024-05-01,1,19.90,updated]",
            "[2024-05-01,2,5.00,null]",
            "[2024-05-02,1,1.00,later]");

    // Two writers at once on one table, every commit under the lock: all rows, no snapshot lost.
    session.spark.sql(
        "CREATE TABLE lake.shop.clicks (dt STRING, writer INT, n INT) USING lockstep"
            + " PARTITIONED BY (dt)");
    int writers = 2;
    int inserts = 3;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        done.add(
            pool.submit(
                () -> {
                  Thread.currentThread().setContextClassLoader(jars);
                  for (int i = 0; i < inserts; i++) {
                    session.spark.sql(
                        "INSERT INTO lake.shop.clicks VALUES ('d"
                            + writer
                            + "', "
                            + writer
                            + ", "
                            + i
                            + ")");
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(3, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(session.rows("SELECT dt, writer, n FROM lake.shop.clicks ORDER BY dt, n"))
        .containsExactlyElementsOf(
            IntStream.range(0, writers)
                .boxed()
                .flatMap(
                    w ->
                        IntStream.range(0, inserts)
                            .mapToObj(i -> "[d" + w + "," + w + "," + i + "]"))
                .collect(Collectors.toList()));
    assertThat(snapshots(warehouse, "shop", "clicks"))
        .as("snapshots of the two writers")
        .containsExactlyElementsOf(
            LongStream.rangeClosed(1, writers * inserts).boxed().collect(Collectors.toList()));

    // The commits took the tables' locks in this ZooKeeper: <base-path>/<database.table>.
    ZooKeeper client = new ZooKeeper(connectString, 10_000, event -> {});
    try {
      assertThat(client.getChildren("/lockstep/locks", false))
          .contains("shop.orders", "shop.clicks");
    } finally {
      client.close();
    }
  }
}
