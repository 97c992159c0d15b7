package dev.lockstep.bundle.spark;

import static dev.lockstep.bundle.spark.SparkSubmitSession.origin;
import static dev.lockstep.bundle.spark.SparkSubmitSession.requiredJar;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's newer table features through the Spark bundle: Spark 3.5.8 in local mode with, of
 * Lockstep, only {@code lockstep-spark-bundle} as {@code --jars} (launched as {@link SparkBundleIT}
 * launches it, from {@code spark/README.md}'s spark-sql block). Through Spark SQL, with exact rows:
 *
 * <ul>
 *   <li>a primary-key table with {@code deletion-vectors.enabled}: inserts and two rounds of
 *       upserts (each supersedes rows that the commit marks in a vector), full and filtered reads;
 *   <li>a primary-key table with every column type Spark can create, the six newer ones included
 *       (TINYINT, SMALLINT, FLOAT, CHAR(n), VARCHAR(n), TIMESTAMP as TIMESTAMP_LTZ(6)), with an
 *       update;
 *   <li>a dynamic-bucket table ({@code bucket = -1}, with deletion vectors) written by several
 *       tasks per statement;
 *   <li>a {@code changelog-producer = lookup} table: its commits write changelog files, and the
 *       batch read is exact.
 * </ul>
 *
 * Spark has no {@code DELETE} or streaming read for Lockstep tables (spark/README.md, "Not done
 * yet"); deletes and the streaming read run on Flink ({@code bundles/tests/flink}).
 */
class SparkTableFeaturesBundleIT {

  @TempDir static Path warehouse;

  private static Path bundle;
  private static SparkSubmitSession session;
  private static SparkSession spark;

  @BeforeAll
  static void startSpark() throws Exception {
    bundle = requiredJar("lockstep.bundle.jar");
    session =
        SparkSubmitSession.launch(
            "--jars lockstep-spark-bundle.jar ",
            Map.of("lockstep-spark-bundle.jar", bundle),
            Map.of(
                "spark.sql.catalog.lake.warehouse",
                new String[] {"/tmp/lake", warehouse.toString()}));
    spark = session.spark;
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.f");
  }

  @AfterAll
  static void stopSpark() throws IOException {
    if (session != null) {
      session.close();
    }
  }

  @Test
  void deletionVectorTableReadsTheLatestRowPerKey() throws Exception {
    spark.sql(
        "CREATE TABLE lake.f.dv (id BIGINT, name STRING, score INT) USING lockstep"
            + " TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2',"
            + " 'deletion-vectors.enabled' = 'true')");
    spark.sql(
        "INSERT INTO lake.f.dv VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)");
    spark.sql("INSERT INTO lake.f.dv VALUES (2, 'b2', 21), (5, 'e', 50)");
    spark.sql("INSERT INTO lake.f.dv VALUES (2, 'b3', 22), (3, 'c2', 31)");
    assertThat(rows("SELECT * FROM lake.f.dv ORDER BY id"))
        .containsExactly("[1,a,10]", "[2,b3,22]", "[3,c2,31]", "[4,d,40]", "[5,e,50]");
    assertThat(rows("SELECT id FROM lake.f.dv WHERE score BETWEEN 21 AND 40 ORDER BY id"))
        .containsExactly("[2]", "[3]", "[4]");
    assertThat(rows("SELECT count(*) FROM lake.f.dv")).containsExactly("[5]");
    assertThat(files("dv", "manifest", "index-", ".dv")).as("deletion-vector files").isNotEmpty();
    assertThat(rows("SHOW TBLPROPERTIES lake.f.dv ('deletion-vectors.enabled')"))
        .containsExactly("[deletion-vectors.enabled,true]");
    // Across bundles: the engine inside the Flink bundle reads what Spark's bundle wrote.
    assertThat(readThroughTheFlinkBundlesEngine("f.dv"))
        .containsExactlyInAnyOrder(
            "[1, a, 10]", "[2, b3, 22]", "[3, c2, 31]", "[4, d, 40]", "[5, e, 50]");
  }

  @Test
  void everyColumnTypeRoundTripsWithAnUpdate() throws Exception {
    spark.conf().set("spark.sql.session.timeZone", "UTC");
    spark.sql(
        "CREATE TABLE lake.f.typed (id INT, ti TINYINT, si SMALLINT, bi BIGINT, fl FLOAT,"
            + " db DOUBLE, bo BOOLEAN, st STRING, ch CHAR(3), vc VARCHAR(5), bs BINARY,"
            + " de DECIMAL(12, 2), dt DATE, ntz TIMESTAMP_NTZ, ts TIMESTAMP) USING lockstep"
            + " TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2',"
            + " 'deletion-vectors.enabled' = 'true')");
    spark.sql(
        "INSERT INTO lake.f.typed VALUES"
            + " (1, CAST(-128 AS TINYINT), CAST(-300 AS SMALLINT), 9000000000, CAST(-0.5 AS FLOAT),"
            + " 2.25D, TRUE, 'one', 'ab', 'abcde', X'CAFE', 123.45, DATE'2024-05-01',"
            + " TIMESTAMP_NTZ'2024-05-01 10:00:00.123456', TIMESTAMP'2024-05-01 10:00:00.123'),"
            + " (2, CAST(127 AS TINYINT), CAST(32767 AS SMALLINT), -1, CAST(1.5 AS FLOAT),"
            + " -0.125D, FALSE, 'two', 'xyz', 'v', X'00', -0.01, DATE'1970-01-01',"
            + " TIMESTAMP_NTZ'1999-12-31 23:59:59.000001', TIMESTAMP'1970-01-01 00:00:00'),"
            + " (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
            + " NULL)");
    spark.sql(
        "INSERT INTO lake.f.typed VALUES (2, CAST(-1 AS TINYINT), CAST(-2 AS SMALLINT), 3,"
            + " CAST(-4.75 AS FLOAT), 5.5D, TRUE, 'deux', 'x', 'vw', X'0102FF', 99999.99,"
            + " DATE'2038-01-19', TIMESTAMP_NTZ'2038-01-19 03:14:07.999999',"
            + " TIMESTAMP'2038-01-19 03:14:07.999999')");
    String select =
        "SELECT id, ti, si, bi, fl, db, bo, st, concat('[', ch, ']'), vc, hex(bs), de, dt,"
            + " CAST(ntz AS STRING), unix_micros(ts) FROM lake.f.typed";
    assertThat(rows(select + " ORDER BY id"))
        .containsExactly(
            "[1,-128,-300,9000000000,-0.5,2.25,true,one,[ab ],abcde,CAFE,123.45,2024-05-01,"
                + "2024-05-01 10:00:00.123456,1714557600123000]",
            "[2,-1,-2,3,-4.75,5.5,true,deux,[x  ],vw,0102FF,99999.99,2038-01-19,"
                + "2038-01-19 03:14:07.999999,2147483647999999]",
            "[3,null,null,null,null,null,null,null,null,null,null,null,null,null,null]");
    assertThat(
            rows(
                "SELECT id FROM lake.f.typed WHERE ti < 0 AND si > -100 AND fl < 0"
                    + " AND ts > TIMESTAMP'2024-05-01 10:00:00.123'"))
        .containsExactly("[2]");
  }

  @Test
  void dynamicBucketTableKeepsOneRowPerKey() throws Exception {
    spark.sql(
        "CREATE TABLE lake.f.dyn (id BIGINT, v STRING) USING lockstep"
            + " TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '-1',"
            + " 'dynamic-bucket.target-row-num' = '4', 'deletion-vectors.enabled' = 'true')");
    // Several write tasks per statement (repartition), each assigning new keys to buckets.
    spark.sql(
        "INSERT INTO lake.f.dyn SELECT /*+ REPARTITION(3) */ id, concat('a', id)"
            + " FROM range(1, 13)");
    spark.sql(
        "INSERT INTO lake.f.dyn SELECT /*+ REPARTITION(3) */ id, concat('b', id)"
            + " FROM range(7, 21)");
    List<String> expected = new ArrayList<>();
    for (long id = 1; id <= 20; id++) {
      expected.add("[" + id + "," + (id >= 7 ? "b" : "a") + id + "]");
    }
    assertThat(rows("SELECT * FROM lake.f.dyn ORDER BY id")).containsExactlyElementsOf(expected);
    assertThat(rows("SELECT count(*), count(DISTINCT id) FROM lake.f.dyn"))
        .containsExactly("[20,20]");
    try (Stream<Path> buckets = Files.list(table("dyn"))) {
      assertThat(buckets.filter(p -> p.getFileName().toString().startsWith("bucket-")).count())
          .as("buckets opened for 20 keys at 4 per bucket")
          .isGreaterThan(1);
    }
    assertThat(files("dyn", "manifest", "index-", ".hash")).as("hash index files").isNotEmpty();
    assertThat(files("dyn", "manifest", "index-", ".dv")).as("deletion-vector files").isNotEmpty();
  }

  @Test
  void lookupChangelogTableWritesChangelogFiles() throws Exception {
    spark.sql(
        "CREATE TABLE lake.f.payments (id BIGINT, status STRING) USING lockstep"
            + " TBLPROPERTIES ('primary-key' = 'id', 'changelog-producer' = 'lookup')");
    spark.sql("INSERT INTO lake.f.payments VALUES (1, 'new'), (2, 'new')");
    spark.sql("INSERT INTO lake.f.payments VALUES (1, 'paid')");
    assertThat(rows("SELECT * FROM lake.f.payments ORDER BY id"))
        .containsExactly("[1,paid]", "[2,new]");
    assertThat(files("payments", "bucket-0", "changelog-", ""))
        .as("changelog files written by the lookup producer")
        .isNotEmpty();
    assertThat(origin(Class.forName("dev.lockstep.spark.LockstepCatalog", false, session.jars)))
        .isEqualTo(bundle);
  }

  /**
   * Reads a table of this warehouse through the engine of {@code lockstep-flink-1.20}'s bundle (its
   * own shaded copy, relocated under {@code dev.lockstep.shaded.flink}), loaded from its file into
   * a class loader whose parent is the platform loader, with only Spark's Hadoop client, Commons
   * Logging, codecs and SLF4J beside it; by the engine's Java API, each row as {@code GenericRow}'s
   * text.
   */
  private static List<String> readThroughTheFlinkBundlesEngine(String identifier) throws Exception {
    Path flink = requiredJar("lockstep.bundle.flink");
    assertThat(flink.getFileName().toString()).startsWith("lockstep-flink-1.20-");
    List<URL> urls = new ArrayList<>();
    for (String property :
        List.of(
            "lockstep.hadoop.api",
            "lockstep.hadoop.runtime",
            "lockstep.commons-logging",
            "lockstep.zstd",
            "lockstep.snappy",
            "lockstep.bundle.slf4j")) {
      urls.add(requiredJar(property).toUri().toURL());
    }
    urls.add(0, flink.toUri().toURL());
    ClassLoader previous = Thread.currentThread().getContextClassLoader();
    try (URLClassLoader loader =
        new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
      Thread.currentThread().setContextClassLoader(loader);
      Class<?> fileIOType = loader.loadClass("dev.lockstep.fs.FileIO");
      Class<?> pathType = loader.loadClass("dev.lockstep.fs.Path");
      Class<?> catalogType = loader.loadClass("dev.lockstep.engine.catalog.FileSystemCatalog");
      Class<?> identifierType = loader.loadClass("dev.lockstep.engine.catalog.Identifier");
      assertThat(origin(catalogType)).isEqualTo(flink);
      assertThat(loader.loadClass("dev.lockstep.shaded.flink.org.roaringbitmap.RoaringBitmap"))
          .isNotNull();
      Object fileIO =
          loader.loadClass("dev.lockstep.fs.local.LocalFileIO").getConstructor().newInstance();
      Object location = pathType.getMethod("of", String.class).invoke(null, warehouse.toString());
      Object catalog =
          catalogType
              .getConstructor(fileIOType, pathType, Map.class)
              .newInstance(fileIO, location, Map.of());
      Object id = identifierType.getMethod("parse", String.class).invoke(null, identifier);
      Object table = catalogType.getMethod("getTable", identifierType).invoke(catalog, id);
      try {
        Object plan = call(call(table, "newScan"), "plan");
        Object read = call(table, "newRead");
        Method readAll = null;
        for (Method m : read.getClass().getMethods()) {
          if (m.getName().equals("readAll") && m.getParameterCount() == 1) {
            readAll = m;
          }
        }
        assertThat(readAll).as("TableRead.readAll(Plan)").isNotNull();
        return ((List<?>) readAll.invoke(read, plan))
            .stream().map(String::valueOf).collect(Collectors.toList());
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

  private static List<String> rows(String sql) {
    return session.rows(sql);
  }

  private static Path table(String name) {
    return warehouse.resolve("f.db").resolve(name);
  }

  private static List<Path> files(String table, String subdirectory, String prefix, String suffix)
      throws IOException {
    try (Stream<Path> files = Files.list(table(table).resolve(subdirectory))) {
      return files
          .filter(
              p -> {
                String name = p.getFileName().toString();
                return name.startsWith(prefix) && name.endsWith(suffix);
              })
          .collect(Collectors.toList());
    }
  }
}
