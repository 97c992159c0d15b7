package dev.lockstep.bundle.paimonflink;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.options.CreateContainerOptions;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lockstep's bundles as Apache Paimon plugins on a real engine: a Flink 1.20 MiniCluster with
 * Paimon's own {@code paimon-flink-1.20} 1.3.1 jar and, of Lockstep, only the shaded jars {@code
 * lockstep-fs-s3-bundle} and {@code lockstep-lock-zookeeper-bundle} on the class path, as in {@code
 * $FLINK_HOME/lib}. The catalogs are the bundles README's Flink SQL examples, read from the README
 * itself (only the endpoint, the credentials, the bucket and the ZooKeeper address are this
 * test's), on s3proxy 4.0.0 and a curator-test ZooKeeper in this JVM.
 *
 * <p>Each catalog gets two streaming {@code INSERT INTO} jobs on one table at the same time, each
 * committing a Paimon snapshot per checkpoint, then a batch {@code SELECT}: every row of both jobs
 * is there exactly once, both jobs finished, the snapshots are 1..N with no gap, each commit of
 * each job is there once, and their record counts add up to the rows.
 */
class PaimonFlinkBundleIT {

  private static final String ACCESS_KEY = "paimon-flink-access";
  private static final String SECRET_KEY = "paimon-flink-secret-never-logged";
  private static final String BUCKET = "lake";

  /**
   * Rows per INSERT job; at 1,000 rows/s each job runs about 3 s with a checkpoint every 200 ms.
   */
  private static final int ROWS_PER_JOB = 3_000;

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  private static TestingServer zooKeeper;
  private static BlobStore blobStore;
  private static S3Proxy s3;

  @BeforeAll
  static void startServers() throws Exception {
    zooKeeper = new TestingServer(true);
    blobStore = new TransientNio2BlobStore();
    blobStore.createContainer(BUCKET, CreateContainerOptions.NONE);
    s3 =
        S3Proxy.builder()
            .blobStore(blobStore)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
    s3.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!s3.getState().equals("STARTED")) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("s3proxy did not start: " + s3.getState());
      }
      Thread.sleep(10);
    }
  }

  @AfterAll
  static void stopServers() throws Exception {
    if (s3 != null) {
      s3.stop();
    }
    if (blobStore != null) {
      blobStore.close();
    }
    if (zooKeeper != null) {
      zooKeeper.close();
    }
  }

  /**
   * What Flink and Paimon run is the bundles: every Lockstep class comes from a shaded bundle jar,
   * no Lockstep module jar or class directory is on the class path, and Paimon's own discovery
   * finds Lockstep's s3 / s3a FileIO and lockstep-zookeeper lock in those jars.
   */
  @Test
  void lockstepReachesPaimonOnlyThroughTheBundleJars() throws Exception {
    List<String> lockstepEntries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path path = Paths.get(entry);
      if (entry.contains("lockstep") && !path.startsWith(Paths.get("").toAbsolutePath())) {
        lockstepEntries.add(path.getFileName().toString());
      }
    }
    assertThat(lockstepEntries)
        .as("Lockstep entries on the test class path")
        .isNotEmpty()
        .allMatch(
            name -> name.matches("lockstep-(fs-s3|lock-zookeeper|lock-jdbc)-bundle-.*\\.jar"));

    Map<String, org.apache.paimon.fs.FileIOLoader> loaders =
        org.apache.paimon.fs.FileIO.discoverLoaders();
    assertThat(jarOf(loaders.get("s3").getClass())).startsWith("lockstep-fs-s3-bundle-");
    assertThat(jarOf(loaders.get("s3a").getClass())).startsWith("lockstep-fs-s3-bundle-");
    // The lock factories: lockstep-paimon's classes are the same in every bundle (the listing tests
    // compare them byte for byte), so the class may come from any of them; what counts is that the
    // factory is found, that only its backend's bundle registers it, and that the backend it opens
    // is that bundle's.
    for (String[] lock :
        new String[][] {
          {
            "lockstep-zookeeper",
            "lockstep-lock-zookeeper-bundle-",
            "dev.lockstep.lock.zookeeper.ZooKeeperLockFactory"
          },
          {
            "lockstep-jdbc",
            "lockstep-lock-jdbc-bundle-",
            "dev.lockstep.lock.jdbc.JdbcCatalogLockFactory"
          }
        }) {
      org.apache.paimon.catalog.CatalogLockFactory factory =
          org.apache.paimon.factories.FactoryUtil.discoverFactory(
              org.apache.paimon.catalog.CatalogLockFactory.class.getClassLoader(),
              org.apache.paimon.catalog.CatalogLockFactory.class,
              lock[0]);
      assertThat(jarOf(factory.getClass())).startsWith("lockstep-");
      assertThat(servicesListing(factory.getClass().getName()))
          .as("services listing %s", lock[0])
          .singleElement()
          .asString()
          .startsWith(lock[1]);
      assertThat(jarOf(Class.forName(lock[2]))).startsWith(lock[1]);
    }
    assertThat(servicesListing(loaders.get("s3").getClass().getName()))
        .singleElement()
        .asString()
        .startsWith("lockstep-fs-s3-bundle-");
    // Paimon itself is the engine's: never bundled, never relocated.
    assertThat(jarOf(org.apache.paimon.fs.FileIO.class)).startsWith("paimon-flink-1.20-1.3.1");
  }

  /** README "lock-free": Lockstep's S3 FileIO, no lock at all; the conditional create decides. */
  @Test
  void twoConcurrentInsertJobsCommitEveryRowLockFree() throws Exception {
    Map<String, String> options = readmeCatalog("lock-free");
    assertThat(options).doesNotContainKeys("lock.type", "lock.enabled");
    runTwoConcurrentInserts(options, "lockfree");
  }

  /** README "zookeeper": the same store with lock.type = lockstep-zookeeper. */
  @Test
  void twoConcurrentInsertJobsCommitEveryRowUnderAZooKeeperLock() throws Exception {
    Map<String, String> options = readmeCatalog("zookeeper");
    assertThat(options).containsEntry("lock.type", "lockstep-zookeeper");
    String basePath = "/lockstep/locks";
    runTwoConcurrentInserts(options, "zookeeper");
    // The lock really went through ZooKeeper: the table's lock node is under the base path.
    try (CuratorFramework client =
        CuratorFrameworkFactory.newClient(zooKeeper.getConnectString(), new RetryOneTime(100))) {
      client.start();
      assertThat(client.checkExists().forPath(basePath))
          .as("ZooKeeper node %s", basePath)
          .isNotNull();
      assertThat(client.getChildren().forPath(basePath))
          .as("lock nodes under %s", basePath)
          .anyMatch(child -> child.contains("events"));
    }
  }

  private void runTwoConcurrentInserts(Map<String, String> readmeOptions, String warehouse)
      throws Exception {
    String catalog = createCatalogSql("lake_" + warehouse, readmeOptions, warehouse);
    long started = System.nanoTime();

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.enableCheckpointing(200);
    StreamTableEnvironment streaming =
        StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
    String lake = "lake_" + warehouse;
    streaming.executeSql(catalog).await();
    streaming.executeSql("CREATE DATABASE IF NOT EXISTS " + lake + ".db").await();
    // An append table written by two jobs at once: write-only, as Paimon asks of several writers
    // (compaction is left to one dedicated job, so two jobs never rewrite the same files).
    streaming
        .executeSql(
            "CREATE TABLE "
                + lake
                + ".db.events (id BIGINT, writer STRING, "
                + "payload STRING) WITH ('bucket' = '-1', 'write-only' = 'true')")
        .await();
    List<String> writers = List.of("a", "b");
    for (int i = 0; i < writers.size(); i++) {
      streaming
          .executeSql(
              "CREATE TEMPORARY TABLE gen_"
                  + writers.get(i)
                  + " (id BIGINT) WITH ("
                  + "'connector' = 'datagen', 'rows-per-second' = '1000', "
                  + "'fields.id.kind' = 'sequence', 'fields.id.start' = '"
                  + (i * 1_000_000L + 1)
                  + "', "
                  + "'fields.id.end' = '"
                  + (i * 1_000_000L + ROWS_PER_JOB)
                  + "')")
          .await();
    }
    List<TableResult> jobs = new ArrayList<>();
    for (String writer : writers) {
      jobs.add(
          streaming.executeSql(
              "INSERT INTO "
                  + lake
                  + ".db.events SELECT id, '"
                  + writer
                  + "', CONCAT('row-', CAST(id AS STRING)) FROM gen_"
                  + writer));
    }
    for (TableResult job : jobs) {
      // Throws if the job failed (a lost or duplicated snapshot fails Paimon's committer).
      job.await(3, TimeUnit.MINUTES);
      assertThat(job.getJobClient().orElseThrow().getJobStatus().get(1, TimeUnit.MINUTES).name())
          .isEqualTo("FINISHED");
    }

    long inserted = System.nanoTime();
    TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    batch.executeSql(catalog).await();
    Map<String, Set<Long>> rows = new TreeMap<>();
    int count = 0;
    try (CloseableIterator<Row> it =
        batch.executeSql("SELECT id, writer, payload FROM " + lake + ".db.events").collect()) {
      while (it.hasNext()) {
        Row row = it.next();
        long id = (Long) row.getField(0);
        assertThat(row.getField(2)).isEqualTo("row-" + id);
        rows.computeIfAbsent((String) row.getField(1), w -> new TreeSet<>()).add(id);
        count++;
      }
    }
    assertThat(count).as("rows read").isEqualTo(writers.size() * ROWS_PER_JOB);
    for (int i = 0; i < writers.size(); i++) {
      Set<Long> expected = new HashSet<>();
      for (long id = i * 1_000_000L + 1; id <= i * 1_000_000L + ROWS_PER_JOB; id++) {
        expected.add(id);
      }
      assertThat(rows.get(writers.get(i)))
          .as("ids of job %s", writers.get(i))
          .containsExactlyInAnyOrderElementsOf(expected);
    }

    // The snapshots: 1..N, every commit of each job once, record counts adding up to the rows.
    List<Long> ids = new ArrayList<>();
    Map<String, List<Long>> identifiersByUser = new LinkedHashMap<>();
    Map<String, Long> recordsByUser = new HashMap<>();
    List<String> order = new ArrayList<>();
    try (CloseableIterator<Row> it =
        batch
            .executeSql(
                "SELECT snapshot_id, commit_user, "
                    + "commit_identifier, commit_kind, delta_record_count FROM "
                    + lake
                    + ".db.`events$snapshots` ORDER BY snapshot_id")
            .collect()) {
      while (it.hasNext()) {
        Row row = it.next();
        ids.add((Long) row.getField(0));
        String user = (String) row.getField(1);
        assertThat(row.getField(3)).as("commit kind").isEqualTo("APPEND");
        identifiersByUser.computeIfAbsent(user, u -> new ArrayList<>()).add((Long) row.getField(2));
        recordsByUser.merge(user, (Long) row.getField(4), Long::sum);
        order.add(user);
      }
    }
    assertThat(ids).as("snapshot ids").isNotEmpty();
    for (int i = 0; i < ids.size(); i++) {
      assertThat(ids.get(i)).as("snapshot ids %s have no gap", ids).isEqualTo(i + 1L);
    }
    assertThat(identifiersByUser).as("commit users").hasSize(writers.size());
    for (var user : identifiersByUser.entrySet()) {
      List<Long> identifiers = user.getValue();
      for (int i = 1; i < identifiers.size(); i++) {
        assertThat(identifiers.get(i))
            .as("commit identifiers of %s: %s", user.getKey(), identifiers)
            .isGreaterThan(identifiers.get(i - 1));
      }
      assertThat(recordsByUser.get(user.getKey()))
          .as("records committed by %s", user.getKey())
          .isEqualTo((long) ROWS_PER_JOB);
    }
    for (long id = 1; id <= ids.size(); id++) {
      assertThat(blobStore.blobExists(BUCKET, warehouse + "/db.db/events/snapshot/snapshot-" + id))
          .as("snapshot-%s in the bucket", id)
          .isTrue();
    }
    System.out.printf(
        "%s: DDL + two INSERT jobs %d ms, reads %d ms; %d snapshots, commit users in"
            + " snapshot order %s%n",
        warehouse,
        (inserted - started) / 1_000_000,
        (System.nanoTime() - inserted) / 1_000_000,
        ids.size(),
        order.stream().map(u -> u.substring(0, 8)).collect(Collectors.joining(" ")));
  }

  /**
   * README "spark", verified without Spark (no paimon-spark artifact is served here): Paimon's
   * {@code SparkCatalog.initialize} passes the {@code spark.sql.catalog.lake.<key>} options, prefix
   * removed, to {@code CatalogFactory.createCatalog}; this does the same with the README's options
   * and commits through Paimon's Java API from two writers at once under {@code lockstep-jdbc} on
   * the machine's MariaDB.
   */
  @Test
  void theSparkExamplesOptionsCommitThroughPaimon() throws Exception {
    Map<String, String> options = readmeSparkOptions();
    assertThat(options)
        .containsEntry("lock.type", "lockstep-jdbc")
        .containsEntry("warehouse", "s3://my-bucket/warehouse")
        .containsEntry("s3.endpoint", "https://minio.internal:9000")
        .containsEntry("s3.access-key", "<access-key>")
        .containsEntry("s3.secret-key", "<secret-key>")
        .containsEntry("lock.jdbc.url", "jdbc:mariadb://db.internal:3306/lockstep")
        .containsEntry("lock.jdbc.user", "lockstep")
        .containsEntry("lock.jdbc.password", "<password>");
    options.put("warehouse", "s3://" + BUCKET + "/spark");
    options.put("s3.endpoint", "http://127.0.0.1:" + s3.getPort());
    options.put("s3.access-key", ACCESS_KEY);
    options.put("s3.secret-key", SECRET_KEY);
    options.put("lock.jdbc.url", MARIADB);
    options.put("lock.jdbc.user", "root");
    options.remove("lock.jdbc.password"); // the machine's MariaDB: root without a password
    assertThat(options.keySet())
        .allMatch(
            key -> key.equals(key.toLowerCase(java.util.Locale.ROOT)),
            "lower case, as Spark's CaseInsensitiveStringMap hands them over");

    String tableName = "events_" + System.nanoTime();
    org.apache.paimon.catalog.Identifier id =
        org.apache.paimon.catalog.Identifier.create("db", tableName);
    int writers = 2;
    int commits = 10;
    int rowsPerCommit = 10;
    try (org.apache.paimon.catalog.Catalog catalog =
        org.apache.paimon.catalog.CatalogFactory.createCatalog(
            org.apache.paimon.catalog.CatalogContext.create(
                org.apache.paimon.options.Options.fromMap(options)))) {
      catalog.createDatabase("db", true);
      catalog.createTable(
          id,
          org.apache.paimon.schema.Schema.newBuilder()
              .column("id", org.apache.paimon.types.DataTypes.BIGINT())
              .column("writer", org.apache.paimon.types.DataTypes.INT())
              .option("bucket", "-1")
              .option("write-only", "true")
              .build(),
          false);
      org.apache.paimon.table.Table table = catalog.getTable(id);
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(writers);
      try {
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          int writer = w;
          done.add(
              pool.submit(
                  () -> {
                    org.apache.paimon.table.sink.StreamWriteBuilder builder =
                        table.newStreamWriteBuilder().withCommitUser("spark-example-" + writer);
                    try (org.apache.paimon.table.sink.StreamTableWrite write = builder.newWrite();
                        org.apache.paimon.table.sink.StreamTableCommit commit =
                            builder.newCommit()) {
                      for (int c = 0; c < commits; c++) {
                        for (int r = 0; r < rowsPerCommit; r++) {
                          write.write(
                              org.apache.paimon.data.GenericRow.of(
                                  (long) writer * 1_000_000L + c * rowsPerCommit + r, writer));
                        }
                        commit.commit(c, write.prepareCommit(false, c));
                      }
                    }
                    return null;
                  }));
        }
        for (java.util.concurrent.Future<?> f : done) {
          f.get(3, TimeUnit.MINUTES);
        }
      } finally {
        pool.shutdownNow();
      }

      Set<Long> ids = new TreeSet<>();
      long[] read = {0};
      org.apache.paimon.table.source.ReadBuilder reader = table.newReadBuilder();
      try (org.apache.paimon.reader.RecordReader<org.apache.paimon.data.InternalRow> records =
          reader.newRead().createReader(reader.newScan().plan().splits())) {
        records.forEachRemaining(
            row -> {
              ids.add(row.getLong(0));
              read[0]++;
            });
      }
      assertThat(read[0]).as("rows read").isEqualTo((long) writers * commits * rowsPerCommit);
      assertThat(ids).as("distinct ids").hasSize(writers * commits * rowsPerCommit);
      assertThat(table.latestSnapshot().orElseThrow().id())
          .as("snapshots")
          .isEqualTo((long) writers * commits);
    }

    // The lock really went through MariaDB: the table's lock row, released, its fencing token
    // counting every acquisition (one per snapshot commit, one for the CREATE TABLE).
    java.util.Properties credentials = new java.util.Properties();
    credentials.setProperty("user", "root");
    try (java.sql.Connection connection =
            new org.mariadb.jdbc.Driver().connect(MARIADB, credentials);
        java.sql.PreparedStatement query =
            connection.prepareStatement(
                "SELECT owner_id, fencing_token FROM lockstep_locks WHERE lock_key = ?")) {
      query.setString(1, "db." + tableName);
      try (java.sql.ResultSet row = query.executeQuery()) {
        assertThat(row.next()).as("lock row of db.%s", tableName).isTrue();
        assertThat(row.getObject(1)).as("owner after release").isNull();
        assertThat(row.getLong(2)).isGreaterThanOrEqualTo((long) writers * commits);
      }
    }
  }

  private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test";

  private static final Pattern SPARK_OPTION =
      Pattern.compile("--conf spark\\.sql\\.catalog\\.lake\\.([^=\\s]+)=(\\S+)");

  /** The catalog options of the README's Spark block, {@code spark.sql.catalog.lake.} removed. */
  static Map<String, String> readmeSparkOptions() throws Exception {
    String readme =
        Files.readString(
            Paths.get(System.getProperty("lockstep.bundle.readme")), StandardCharsets.UTF_8);
    String marker = "<!-- tested: PaimonFlinkBundleIT spark -->";
    int at = readme.indexOf(marker);
    assertThat(at).as("README marker %s", marker).isGreaterThanOrEqualTo(0);
    int start = readme.indexOf("```", at);
    int end = readme.indexOf("```", start + 3);
    String block = readme.substring(start + 3, end);
    assertThat(block)
        .contains("--conf spark.sql.catalog.lake=org.apache.paimon.spark.SparkCatalog");
    Map<String, String> options = new LinkedHashMap<>();
    Matcher m = SPARK_OPTION.matcher(block);
    while (m.find()) {
      options.put(m.group(1), m.group(2));
    }
    return options;
  }

  /** {@code CREATE CATALOG} with the README's options; only the machine-specific ones replaced. */
  private static String createCatalogSql(
      String name, Map<String, String> readme, String warehouse) {
    Map<String, String> options = new LinkedHashMap<>(readme);
    options.put("warehouse", "s3://" + BUCKET + "/" + warehouse);
    options.put("s3.endpoint", "http://127.0.0.1:" + s3.getPort());
    options.put("s3.access-key", ACCESS_KEY);
    options.put("s3.secret-key", SECRET_KEY);
    if (options.containsKey("lock.zookeeper.connect-string")) {
      options.put("lock.zookeeper.connect-string", zooKeeper.getConnectString());
    }
    return "CREATE CATALOG "
        + name
        + " WITH ("
        + options.entrySet().stream()
            .map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
            .collect(Collectors.joining(", "))
        + ")";
  }

  private static final Pattern OPTION = Pattern.compile("'([^']+)'\\s*=\\s*'([^']*)'");

  /**
   * The options of the {@code CREATE CATALOG} in the bundles README's SQL block that follows the
   * line {@code <!-- tested: PaimonFlinkBundleIT <name> -->}; its machine-specific values must be
   * the README's placeholders, so the test cannot drift from what the README shows.
   */
  static Map<String, String> readmeCatalog(String name) throws Exception {
    String readme =
        Files.readString(
            Paths.get(System.getProperty("lockstep.bundle.readme")), StandardCharsets.UTF_8);
    String marker = "<!-- tested: PaimonFlinkBundleIT " + name + " -->";
    int at = readme.indexOf(marker);
    assertThat(at).as("README marker %s", marker).isGreaterThanOrEqualTo(0);
    int start = readme.indexOf("```sql", at);
    int end = readme.indexOf("```", start + 6);
    String sql = readme.substring(start + 6, end);
    String create = sql.substring(sql.indexOf("CREATE CATALOG"));
    Map<String, String> options = new LinkedHashMap<>();
    Matcher m = OPTION.matcher(create.replaceAll("--[^\n]*", ""));
    while (m.find()) {
      options.put(m.group(1), m.group(2));
    }
    assertThat(options)
        .containsEntry("type", "paimon")
        .containsEntry("warehouse", "s3://my-bucket/warehouse")
        .containsEntry("s3.endpoint", "https://minio.internal:9000")
        .containsEntry("s3.access-key", "<access-key>")
        .containsEntry("s3.secret-key", "<secret-key>");
    return options;
  }

  /** The jars whose META-INF/services file for Paimon lists {@code provider}. */
  private static List<String> servicesListing(String provider) throws Exception {
    List<String> jars = new ArrayList<>();
    for (String service :
        List.of("org.apache.paimon.factories.Factory", "org.apache.paimon.fs.FileIOLoader")) {
      var urls =
          PaimonFlinkBundleIT.class.getClassLoader().getResources("META-INF/services/" + service);
      while (urls.hasMoreElements()) {
        java.net.URL url = urls.nextElement();
        String text;
        try (var in = url.openStream()) {
          text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (text.lines().map(String::trim).anyMatch(provider::equals)) {
          String path = url.getPath();
          jars.add(
              Paths.get(URI.create(path.substring(0, path.indexOf("!/"))))
                  .getFileName()
                  .toString());
        }
      }
    }
    return jars;
  }

  private static String jarOf(Class<?> type) {
    CodeSource source = type.getProtectionDomain().getCodeSource();
    assertThat(source).as("code source of %s", type).isNotNull();
    return Paths.get(source.getLocation().getPath()).getFileName().toString();
  }
}
