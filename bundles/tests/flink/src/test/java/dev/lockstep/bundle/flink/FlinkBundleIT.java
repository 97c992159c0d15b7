package dev.lockstep.bundle.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flink connector as a Flink user deploys it: a Flink 1.20 MiniCluster whose class path holds,
 * of Lockstep, <b>only</b> the {@code lockstep-flink-1.20} bundle jar (as {@code $FLINK_HOME/lib}
 * does), beside what a cluster brings for Parquet (Hadoop's client, zstd-jni, snappy-java). The
 * first test proves that no other Lockstep jar or class directory is there. Through Flink SQL:
 *
 * <ul>
 *   <li>a primary-key table with {@code deletion-vectors.enabled}: inserts, upserts, a changelog's
 *       updates and deletes, read back exactly in batch, and read again through the engine of the
 *       <b>Spark</b> bundle (its own shaded copy, built by another shade) in an isolated class
 *       loader on the same warehouse;
 *   <li>a primary-key table with every column type, the six newer ones included (TINYINT, SMALLINT,
 *       FLOAT, CHAR(n), VARCHAR(n), TIMESTAMP_LTZ(p)): insert, update, delete, exact values, a
 *       filter on the new types;
 *   <li>a dynamic-bucket table ({@code bucket = -1}, with deletion vectors) that opens several
 *       buckets;
 *   <li>a {@code changelog-producer = lookup} table (with deletion vectors and the newer types)
 *       read as a stream while batch jobs and a changelog job write it: the exact {@code
 *       +I/-U/+U/-D} sequence with every value.
 * </ul>
 *
 * <p>One MiniCluster for the class (1 task manager, 4 slots); each test has its own tables.
 */
class FlinkBundleIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  @TempDir static Path dir;

  private static Path bundle;
  private static String warehouse;

  @BeforeAll
  static void paths() throws IOException {
    bundle = jar("lockstep.bundle.flink");
    assertThat(bundle.getFileName().toString())
        .startsWith("lockstep-flink-" + required("lockstep.flink.line") + "-")
        .endsWith("-bundle.jar");
    warehouse = dir.toUri().toString();
  }

  /**
   * Lockstep reaches Flink only through the bundle: the one Lockstep entry on the class path is the
   * bundle jar, and the connector, engine and lock-api classes, and the catalog Flink's factory
   * discovery instantiated, are all defined from it. The Spark bundle is not on the class path.
   */
  @Test
  void lockstepComesOnlyFromTheFlinkBundle() throws Exception {
    Path root = Path.of(required("lockstep.repository.root")).toRealPath();
    Path module = Path.of(required("lockstep.test.module")).toRealPath();
    List<Path> lockstepEntries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path path = Path.of(entry).toAbsolutePath().normalize();
      if (Files.exists(path)) {
        path = path.toRealPath();
      }
      boolean inRepository = path.startsWith(root) && !path.startsWith(module);
      if (inRepository || path.getFileName().toString().contains("lockstep")) {
        lockstepEntries.add(path);
      }
    }
    assertThat(lockstepEntries)
        .as("Lockstep entries on the test class path")
        .containsExactly(bundle);

    ClassLoader application = FlinkBundleIT.class.getClassLoader();
    for (String name :
        List.of(
            "dev.lockstep.flink.table.LockstepCatalogFactory",
            "dev.lockstep.flink.sink.LockstepCommitter",
            "dev.lockstep.engine.table.FileStoreTable",
            "dev.lockstep.engine.index.DeletionVectorFile",
            "dev.lockstep.commit.SnapshotCommitter",
            "dev.lockstep.shaded.flink.org.roaringbitmap.RoaringBitmap")) {
      assertThat(origin(Class.forName(name, false, application))).as(name).isEqualTo(bundle);
    }
    assertThatThrownBy(
            () -> Class.forName("dev.lockstep.spark.LockstepCatalog", false, application))
        .isInstanceOf(ClassNotFoundException.class);
    assertThatThrownBy(() -> Class.forName("org.roaringbitmap.RoaringBitmap", false, application))
        .as("RoaringBitmap only relocated")
        .isInstanceOf(ClassNotFoundException.class);

    TableEnvironment batch = batch();
    Catalog lake = batch.getCatalog("lake").orElseThrow();
    assertThat(lake.getClass().getName()).isEqualTo("dev.lockstep.flink.table.LockstepCatalog");
    assertThat(origin(lake.getClass())).as("the catalog Flink instantiated").isEqualTo(bundle);
  }

  /**
   * Deletion vectors through the bundle: a batch insert, a batch upsert, and a streaming changelog
   * ({@code -U/+U} of one key, {@code -D} of two, one {@code +I}) into a table with {@code
   * deletion-vectors.enabled}; the batch read (full and projected with a filter) is exact, the
   * table holds vector files, and the engine inside the Spark bundle reads the same rows.
   */
  @Test
  void deletionVectorTableTakesUpdatesAndDeletesAndReadsExactly() throws Exception {
    TableEnvironment batch = batch();
    batch.executeSql(
        "CREATE TABLE dv (id BIGINT, name STRING, score INT, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')");
    batch
        .executeSql("INSERT INTO dv VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)")
        .await();
    batch.executeSql("INSERT INTO dv VALUES (2, 'b2', 21), (5, 'e', 50)").await();
    writeChangelog(
        "dv",
        Schema.newBuilder()
            .column("id", "BIGINT NOT NULL")
            .column("name", "STRING")
            .column("score", "INT")
            .primaryKey("id")
            .build(),
        Types.ROW_NAMED(new String[] {"id", "name", "score"}, Types.LONG, Types.STRING, Types.INT),
        List.of(
            Row.ofKind(RowKind.UPDATE_BEFORE, 3L, "c", 30),
            Row.ofKind(RowKind.UPDATE_AFTER, 3L, "c3", 31),
            Row.ofKind(RowKind.DELETE, 1L, "a", 10),
            Row.ofKind(RowKind.DELETE, 5L, "e", 50),
            Row.ofKind(RowKind.INSERT, 6L, "f", 60)));

    assertThat(rows(batch, "SELECT * FROM dv"))
        .containsExactlyInAnyOrder(
            "+I[2, b2, 21]", "+I[3, c3, 31]", "+I[4, d, 40]", "+I[6, f, 60]");
    assertThat(rows(batch, "SELECT name FROM dv WHERE score > 30"))
        .containsExactlyInAnyOrder("+I[c3]", "+I[d]", "+I[f]");
    assertThat(files("dv", "manifest", "index-", ".dv")).as("deletion-vector files").isNotEmpty();

    assertThat(readThroughTheSparkBundlesEngine("default.dv"))
        .containsExactlyInAnyOrder("[2, b2, 21]", "[3, c3, 31]", "[4, d, 40]", "[6, f, 60]");
  }

  /**
   * Every column type, the six newer ones included, on a primary-key table (with deletion vectors):
   * values round-trip exactly (CHAR blank-padded, VARCHAR cut to its length as Paimon's CAST does),
   * an update replaces a row, a changelog delete removes one, a filter on the new types selects
   * exactly, and the catalog gives Flink the declared types back.
   */
  @Test
  void everyColumnTypeRoundTripsWithUpdatesAndDeletes() throws Exception {
    TableEnvironment batch = batch();
    batch.executeSql(
        "CREATE TABLE typed (id INT NOT NULL, ti TINYINT, si SMALLINT, bi BIGINT, fl FLOAT,"
            + " db DOUBLE, bo BOOLEAN, st STRING, ch CHAR(3), vc VARCHAR(5), bs BYTES,"
            + " de DECIMAL(12, 2), dt DATE, ts TIMESTAMP(6), tl TIMESTAMP_LTZ(3),"
            + " PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')");
    batch
        .executeSql(
            "INSERT INTO typed VALUES"
                + " (1, CAST(-128 AS TINYINT), CAST(-300 AS SMALLINT), CAST(9000000000 AS BIGINT),"
                + " CAST(-0.5 AS FLOAT), CAST(2.25 AS DOUBLE), TRUE, 'one', CAST('ab' AS CHAR(3)),"
                + " CAST('abcde' AS VARCHAR(5)), X'CAFE', CAST(123.45 AS DECIMAL(12, 2)),"
                + " DATE '2024-05-01', TIMESTAMP '2024-05-01 10:00:00.123456',"
                + " TO_TIMESTAMP_LTZ(1714557600123, 3)),"
                + " (2, CAST(127 AS TINYINT), CAST(32767 AS SMALLINT), CAST(-1 AS BIGINT),"
                + " CAST(1.5 AS FLOAT), CAST(-0.125 AS DOUBLE), FALSE, 'two', CAST('xyz' AS CHAR(3)),"
                + " CAST('v' AS VARCHAR(5)), X'00', CAST(-0.01 AS DECIMAL(12, 2)),"
                + " DATE '1970-01-01', TIMESTAMP '1999-12-31 23:59:59.000001',"
                + " TO_TIMESTAMP_LTZ(0, 3)),"
                + " (3, CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT), CAST(NULL AS BIGINT),"
                + " CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE), CAST(NULL AS BOOLEAN),"
                + " CAST(NULL AS STRING), CAST(NULL AS CHAR(3)), CAST(NULL AS VARCHAR(5)),"
                + " CAST(NULL AS BYTES), CAST(NULL AS DECIMAL(12, 2)), CAST(NULL AS DATE),"
                + " CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIMESTAMP_LTZ(3)))")
        .await();
    // An update of row 2: a longer text than VARCHAR(5) holds is cut, a short CHAR is padded.
    batch
        .executeSql(
            "INSERT INTO typed VALUES (2, CAST(-1 AS TINYINT), CAST(-2 AS SMALLINT),"
                + " CAST(3 AS BIGINT), CAST(-4.75 AS FLOAT), CAST(5.5 AS DOUBLE), TRUE, 'deux',"
                + " 'x', 'toolongvalue', X'0102FF', CAST(99999.99 AS DECIMAL(12, 2)),"
                + " DATE '2038-01-19', TIMESTAMP '2038-01-19 03:14:07.999999',"
                + " TO_TIMESTAMP_LTZ(2147483647999, 3))")
        .await();
    deleteKeys("typed", "INT", 15, 3);

    String row1 =
        "+I[1, -128, -300, 9000000000, -0.5, 2.25, true, one, ab , abcde, cafe, 123.45,"
            + " 2024-05-01, 2024-05-01T10:00:00.123456, 2024-05-01T10:00:00.123Z]";
    String row2 =
        "+I[2, -1, -2, 3, -4.75, 5.5, true, deux, x  , toolo, 0102ff, 99999.99, 2038-01-19,"
            + " 2038-01-19T03:14:07.999999, 2038-01-19T03:14:07.999Z]";
    assertThat(rows(batch, "SELECT * FROM typed")).containsExactlyInAnyOrder(row1, row2);
    assertThat(
            rows(
                batch,
                "SELECT id FROM typed WHERE ti < 0 AND si > -100 AND fl < 0"
                    + " AND tl > TO_TIMESTAMP_LTZ(1714557600123, 3) AND vc = 'toolo'"))
        .containsExactly("+I[2]");
    assertThat(
            batch
                .getCatalog("lake")
                .orElseThrow()
                .getTable(new org.apache.flink.table.catalog.ObjectPath("default", "typed"))
                .getUnresolvedSchema()
                .getColumns()
                .toString())
        .contains("TINYINT", "SMALLINT", "FLOAT", "CHAR(3)", "VARCHAR(5)", "TIMESTAMP_LTZ(3)");
  }

  /**
   * A dynamic-bucket table ({@code bucket = -1}, a small target row count so that several buckets
   * open; with deletion vectors) written by two batch jobs at parallelism 2 with overlapping keys
   * and then a changelog of deletes: one row per key, exactly the last written, and the hash index
   * files committed.
   */
  @Test
  void dynamicBucketTableKeepsOneRowPerKey() throws Exception {
    TableEnvironment batch = batch();
    batch.executeSql(
        "CREATE TABLE dyn (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '4',"
            + " 'deletion-vectors.enabled' = 'true')");
    batch.executeSql(values("dyn", 1, 12, "a")).await();
    batch.executeSql(values("dyn", 7, 20, "b")).await();
    deleteKeys("dyn", "BIGINT", 1L, 2L, 20L);

    List<String> expected = new ArrayList<>();
    for (long id = 3; id <= 19; id++) {
      expected.add("+I[" + id + ", " + (id >= 7 ? "b" : "a") + id + "]");
    }
    assertThat(rows(batch, "SELECT * FROM dyn")).containsExactlyInAnyOrderElementsOf(expected);
    try (Stream<Path> buckets = Files.list(table("dyn"))) {
      assertThat(buckets.filter(p -> p.getFileName().toString().startsWith("bucket-")).count())
          .as("buckets opened for 20 keys at 4 per bucket")
          .isGreaterThan(1);
    }
    assertThat(files("dyn", "manifest", "index-", ".hash")).as("hash index files").isNotEmpty();
    assertThat(files("dyn", "manifest", "index-", ".dv")).as("deletion-vector files").isNotEmpty();
  }

  /**
   * A {@code changelog-producer = lookup} table with deletion vectors and columns of the newer
   * types (VARCHAR, CHAR, FLOAT, SMALLINT, TINYINT, TIMESTAMP_LTZ), read as a stream from its first
   * snapshot while batch jobs insert and update and a changelog job deletes: the stream is exactly
   * {@code +I} of both keys, then {@code -U/+U} of the update, then {@code -D} of the deleted key
   * with its last value.
   */
  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void lookupChangelogTableStreamsExactChanges() throws Exception {
    TableEnvironment batch = batch();
    batch.executeSql(
        "CREATE TABLE payments (id BIGINT NOT NULL, status VARCHAR(6), code CHAR(2), amount FLOAT,"
            + " qty SMALLINT, tier TINYINT, paid_at TIMESTAMP_LTZ(3), PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('changelog-producer' = 'lookup', 'deletion-vectors.enabled' = 'true')");
    TableEnvironment stream = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
    stream.getConfig().set("parallelism.default", "1");
    useCatalog(stream);
    List<String> changes = new ArrayList<>();
    try (CloseableIterator<Row> it =
        stream
            .executeSql(
                "SELECT * FROM payments /*+ OPTIONS('scan.mode' = 'from-snapshot',"
                    + " 'scan.snapshot-id' = '1', 'continuous.discovery-interval' = '200 ms') */")
            .collect()) {
      batch
          .executeSql(
              "INSERT INTO payments VALUES (1, 'new', 'a', CAST(1.5 AS FLOAT),"
                  + " CAST(10 AS SMALLINT), CAST(1 AS TINYINT), TO_TIMESTAMP_LTZ(1714557600123, 3)),"
                  + " (2, 'new', 'b', CAST(2.5 AS FLOAT), CAST(20 AS SMALLINT), CAST(2 AS TINYINT),"
                  + " TO_TIMESTAMP_LTZ(0, 3))")
          .await();
      batch
          .executeSql(
              "INSERT INTO payments VALUES (1, 'paid', 'a', CAST(1.5 AS FLOAT),"
                  + " CAST(11 AS SMALLINT), CAST(1 AS TINYINT), TO_TIMESTAMP_LTZ(1714557700123, 3))")
          .await();
      deleteKeys("payments", "BIGINT", 2L);
      while (changes.size() < 5 && it.hasNext()) {
        changes.add(it.next().toString());
      }
    }
    String one = "1, new, a , 1.5, 10, 1, 2024-05-01T10:00:00.123Z]";
    String two = "2, new, b , 2.5, 20, 2, 1970-01-01T00:00:00Z]";
    String paid = "1, paid, a , 1.5, 11, 1, 2024-05-01T10:01:40.123Z]";
    assertThat(changes.subList(0, 2)).containsExactlyInAnyOrder("+I[" + one, "+I[" + two);
    assertThat(changes.subList(2, 5)).containsExactly("-U[" + one, "+U[" + paid, "-D[" + two);
    assertThat(rows(batch, "SELECT * FROM payments")).containsExactly("+I[" + paid);
    assertThat(files("payments", "bucket-0", "changelog-", "")).as("changelog files").isNotEmpty();
  }

  // ---------------------------------------------------------------------------------------------

  private static String values(String table, long from, long to, String prefix) {
    StringBuilder sql = new StringBuilder("INSERT INTO " + table + " VALUES ");
    for (long id = from; id <= to; id++) {
      sql.append(id == from ? "" : ", ").append("(CAST(").append(id).append(" AS BIGINT), '");
      sql.append(prefix).append(id).append("')");
    }
    return sql.toString();
  }

  /**
   * Deletes keys through Flink SQL: a changelog of {@code -D} rows carrying only the key, inserted
   * with every other column NULL ({@code INSERT INTO t SELECT id, CAST(NULL AS ...) ...}); a
   * primary-key table deletes by key.
   */
  private static void deleteKeys(String table, String keyType, Object... keys) throws Exception {
    List<String> types =
        batch().from("lake.`default`." + table).getResolvedSchema().getColumns().stream()
            .map(c -> c.getDataType().getLogicalType().copy(true).asSerializableString())
            .collect(Collectors.toList());
    StringBuilder select = new StringBuilder("INSERT INTO " + table + " SELECT id");
    for (String type : types.subList(1, types.size())) {
      select.append(", CAST(NULL AS ").append(type).append(")");
    }
    select.append(" FROM deletes");
    TypeInformation<?> keyInfo = keyType.equals("INT") ? Types.INT : Types.LONG;
    List<Row> rows = new ArrayList<>();
    for (Object key : keys) {
      rows.add(
          Row.ofKind(
              RowKind.DELETE,
              keyType.equals("INT")
                  ? (Object) ((Number) key).intValue()
                  : ((Number) key).longValue()));
    }
    writeChangelogSql(
        Schema.newBuilder().column("id", keyType + " NOT NULL").primaryKey("id").build(),
        Types.ROW_NAMED(new String[] {"id"}, keyInfo),
        rows,
        "deletes",
        select.toString());
  }

  private static void writeChangelog(
      String table, Schema schema, TypeInformation<Row> type, List<Row> rows) throws Exception {
    writeChangelogSql(schema, type, rows, "cdc", "INSERT INTO " + table + " SELECT * FROM cdc");
  }

  /** One streaming job (checkpoints every 200 ms) that inserts a changelog through SQL. */
  private static void writeChangelogSql(
      Schema schema, TypeInformation<Row> type, List<Row> rows, String view, String insert)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(200);
    env.setParallelism(1);
    StreamTableEnvironment stream = StreamTableEnvironment.create(env);
    useCatalog(stream);
    DataStream<Row> changelog = env.fromData(rows, type);
    stream.createTemporaryView(
        view, stream.fromChangelogStream(changelog, schema, ChangelogMode.all()));
    stream.executeSql(insert).await();
  }

  private static TableEnvironment batch() {
    TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    batch.getConfig().set("parallelism.default", "2");
    useCatalog(batch);
    return batch;
  }

  private static void useCatalog(TableEnvironment env) {
    env.executeSql(
        "CREATE CATALOG lake WITH ('type' = 'lockstep', 'warehouse' = '" + warehouse + "')");
    env.executeSql("USE CATALOG lake");
  }

  /** The rows of a query, each as its kind and its fields (bytes in hex), sorted. */
  private static List<String> rows(TableEnvironment env, String query) throws Exception {
    List<String> out = new ArrayList<>();
    try (CloseableIterator<Row> it = env.executeSql(query).collect()) {
      while (it.hasNext()) {
        Row row = it.next();
        List<String> fields = new ArrayList<>();
        for (int i = 0; i < row.getArity(); i++) {
          Object value = row.getField(i);
          fields.add(
              value instanceof byte[]
                  ? HexFormat.of().formatHex((byte[]) value)
                  : String.valueOf(value));
        }
        out.add(row.getKind().shortString() + "[" + String.join(", ", fields) + "]");
      }
    }
    out.sort(null);
    return out;
  }

  private static Path table(String name) {
    return dir.resolve("default.db").resolve(name);
  }

  private static List<Path> files(String table, String subdirectory, String prefix, String suffix)
      throws IOException {
    Path where = table(table).resolve(subdirectory);
    try (Stream<Path> files = Files.list(where)) {
      return files
          .filter(
              p -> {
                String name = p.getFileName().toString();
                return name.startsWith(prefix) && name.endsWith(suffix);
              })
          .collect(Collectors.toList());
    }
  }

  /**
   * Reads a table of this warehouse through the engine of {@code lockstep-spark-bundle}: its own
   * shaded copy of the engine (Parquet, RoaringBitmap and Jackson under {@code
   * dev.lockstep.shaded.spark}), in a class loader whose parent is the platform loader, with only
   * what Spark's class path would add (Hadoop's client, the codecs, SLF4J). The engine's Java API
   * (engine/README.md): {@code new FileSystemCatalog(new LocalFileIO(), warehouse, options)},
   * {@code getTable}, {@code newRead().readAll(newScan().plan())}; each row as {@code GenericRow}'s
   * text.
   */
  private static List<String> readThroughTheSparkBundlesEngine(String identifier) throws Exception {
    Path spark = jar("lockstep.bundle.spark");
    assertThat(spark.getFileName().toString()).startsWith("lockstep-spark-bundle-");
    List<URL> urls = new ArrayList<>();
    for (Path jar :
        List.of(
            spark,
            jar("lockstep.hadoop.api"),
            jar("lockstep.hadoop.runtime"),
            jar("lockstep.commons-logging"),
            jar("lockstep.zstd"),
            jar("lockstep.snappy"),
            jar("lockstep.bundle.slf4j"))) {
      urls.add(jar.toUri().toURL());
    }
    ClassLoader previous = Thread.currentThread().getContextClassLoader();
    try (URLClassLoader loader =
        new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
      Thread.currentThread().setContextClassLoader(loader);
      Class<?> fileIOType = loader.loadClass("dev.lockstep.fs.FileIO");
      Class<?> catalogType = loader.loadClass("dev.lockstep.engine.catalog.FileSystemCatalog");
      Class<?> identifierType = loader.loadClass("dev.lockstep.engine.catalog.Identifier");
      assertThat(origin(catalogType)).isEqualTo(spark);
      assertThat(loader.loadClass("dev.lockstep.shaded.spark.org.roaringbitmap.RoaringBitmap"))
          .isNotNull();
      Object fileIO =
          loader.loadClass("dev.lockstep.fs.local.LocalFileIO").getConstructor().newInstance();
      Class<?> pathType = loader.loadClass("dev.lockstep.fs.Path");
      Object location = pathType.getMethod("of", String.class).invoke(null, dir.toString());
      Object catalog =
          catalogType
              .getConstructor(fileIOType, pathType, Map.class)
              .newInstance(fileIO, location, Map.of());
      Object id = identifierType.getMethod("parse", String.class).invoke(null, identifier);
      Object table = catalogType.getMethod("getTable", identifierType).invoke(catalog, id);
      try {
        Object scan = call(table, "newScan");
        Object plan = call(scan, "plan");
        Object read = call(table, "newRead");
        Method readAll = null;
        for (Method m : read.getClass().getMethods()) {
          if (m.getName().equals("readAll") && m.getParameterCount() == 1) {
            readAll = m;
          }
        }
        assertThat(readAll).as("TableRead.readAll(Plan)").isNotNull();
        List<?> rows = (List<?>) readAll.invoke(read, plan);
        return rows.stream().map(String::valueOf).collect(Collectors.toList());
      } finally {
        if (table instanceof AutoCloseable) {
          ((AutoCloseable) table).close();
        }
      }
    } finally {
      Thread.currentThread().setContextClassLoader(previous);
    }
  }

  private static Object call(Object target, String method) throws Exception {
    return target.getClass().getMethod(method).invoke(target);
  }

  private static String required(String property) {
    String value = System.getProperty(property);
    assertThat(value)
        .as("system property %s (run through Maven: phase verify)", property)
        .isNotBlank()
        .doesNotStartWith("${");
    return value;
  }

  private static Path jar(String property) throws IOException {
    Path jar = Path.of(required(property)).toRealPath();
    assertThat(jar.getFileName().toString()).endsWith(".jar").doesNotStartWith("original-");
    return jar;
  }

  private static Path origin(Class<?> type) throws Exception {
    CodeSource source = type.getProtectionDomain().getCodeSource();
    assertThat(source).as("code source of %s", type).isNotNull();
    return Path.of(source.getLocation().toURI()).toRealPath();
  }
}
