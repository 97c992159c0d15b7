package dev.lockstep.bundle.spark;

import static dev.lockstep.bundle.spark.SparkSubmitSession.block;
import static dev.lockstep.bundle.spark.SparkSubmitSession.origin;
import static dev.lockstep.bundle.spark.SparkSubmitSession.required;
import static dev.lockstep.bundle.spark.SparkSubmitSession.requiredJar;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.bundle.testing.BundleListing;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.util.MutableURLClassLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spark connector as users get it: Spark 3.5.8 (Scala 2.13, Spark's own dependencies at Spark's
 * versions: Jackson 2.15.2, Avro 1.11.5) in local mode, and of Lockstep <b>only</b> the shaded
 * {@code lockstep-spark-bundle} jar, added the way {@code spark-submit --jars} adds it in client
 * mode: on a {@link MutableURLClassLoader} over the application class loader that is the driver's
 * context class loader, and in {@code spark.jars}, from where the executor fetches it into its own
 * class loader. No Lockstep class is on the test class path (the first test proves it), so every
 * Lockstep class that Spark's driver or its tasks load comes from the bundle.
 *
 * <p>One session for the class, configured with the {@code --conf} settings of {@code
 * spark/README.md}'s spark-sql example (only the warehouse replaced by a temporary directory). It
 * runs that README's {@code sql} block statement by statement, checking the rows the README shows,
 * its spark-shell block, and append and primary-key tables through {@code INSERT} and static and
 * dynamic {@code INSERT OVERWRITE} with exact row checks.
 */
class SparkBundleIT {

  private static final String CATALOG_CLASS = "dev.lockstep.spark.LockstepCatalog";

  @TempDir static Path warehouse;

  private static Path bundle;
  private static SparkSubmitSession session;
  private static SparkSession spark;
  private static MutableURLClassLoader jars;

  @BeforeAll
  static void startSpark() throws Exception {
    bundle = requiredJar("lockstep.bundle.jar");
    assertThat(bundle.getFileName().toString()).startsWith("lockstep-spark-bundle-");
    session =
        SparkSubmitSession.launch(
            "--jars lockstep-spark-bundle.jar ",
            Map.of("lockstep-spark-bundle.jar", bundle),
            Map.of(
                "spark.sql.catalog.lake.warehouse",
                new String[] {"/tmp/lake", warehouse.toString()}));
    assertThat(session.readmeConf).containsEntry("spark.sql.catalog.lake", CATALOG_CLASS);
    spark = session.spark;
    jars = session.jars;
  }

  @AfterAll
  static void stopSpark() throws IOException {
    if (session != null) {
      session.close();
    }
  }

  /**
   * Lockstep reaches Spark only through the bundle: no Lockstep module jar or class directory is on
   * the test class path, the application class loader cannot load a single Lockstep class, and the
   * catalog and the SQL extension Spark instantiated were defined from the bundle jar.
   */
  @Test
  void lockstepComesOnlyFromTheSparkBundle() throws Exception {
    Path root = Path.of(required("lockstep.repository.root")).toRealPath();
    Path module = root.resolve("bundles/tests/spark");
    Path support = root.resolve("bundles/tests/support/target");
    List<String> classPath =
        Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
    assertThat(classPath).as("test class path").isNotEmpty();
    List<Path> lockstepEntries = new ArrayList<>();
    for (String entry : classPath) {
      Path path = Path.of(entry).toAbsolutePath().normalize();
      boolean inRepository = path.startsWith(root) && !path.startsWith(module);
      if (inRepository || path.getFileName().toString().contains("lockstep")) {
        lockstepEntries.add(path);
      }
    }
    // The one Lockstep jar allowed: the bundle tests' support (BundleListing), which holds only
    // dev/lockstep/bundle/testing/ and none of the connector, the engine or lock-api.
    assertThat(lockstepEntries)
        .as("Lockstep entries on the test class path %s", classPath)
        .singleElement()
        .satisfies(
            path ->
                assertThat(
                        path.startsWith(support)
                            && Files.isRegularFile(path)
                            && path.getFileName()
                                .toString()
                                .startsWith("lockstep-bundle-test-support-"))
                    .as("%s is the support jar", path)
                    .isTrue());
    try (JarFile supportJar = new JarFile(lockstepEntries.get(0).toFile())) {
      assertThat(
              Collections.list(supportJar.entries()).stream()
                  .map(JarEntry::getName)
                  .filter(name -> name.endsWith(".class")))
          .isNotEmpty()
          .allMatch(name -> name.startsWith("dev/lockstep/bundle/testing/"));
    }
    assertThat(classPath)
        .as("the bundle is not on the class path: Spark gets it as --jars")
        .noneMatch(entry -> entry.contains("lockstep-spark-bundle"));

    ClassLoader application = SparkBundleIT.class.getClassLoader();
    for (String name :
        List.of(
            CATALOG_CLASS,
            "dev.lockstep.spark.LockstepSparkExtensions",
            "dev.lockstep.engine.table.FileStoreTable",
            "dev.lockstep.fs.FileIO",
            "dev.lockstep.commit.SnapshotCommitter")) {
      assertThatThrownBy(() -> Class.forName(name, false, application))
          .as("%s from the application class loader", name)
          .isInstanceOf(ClassNotFoundException.class);
      assertThat(origin(Class.forName(name, false, jars))).as("%s", name).isEqualTo(bundle);
    }

    CatalogPlugin lake = spark.sessionState().catalogManager().catalog("lake");
    assertThat(lake.getClass().getName()).isEqualTo(CATALOG_CLASS);
    assertThat(origin(lake.getClass())).as("the catalog Spark instantiated").isEqualTo(bundle);
    assertThat(lake.getClass().getClassLoader()).isSameAs(jars);
    assertThat(spark.sessionState().sqlParser().getClass().getName())
        .as("the parser installed by spark.sql.extensions")
        .startsWith("dev.lockstep.spark.");
    assertThat(origin(spark.sessionState().sqlParser().getClass())).isEqualTo(bundle);

    // Executor side: the tasks of a read load the connector's classes, so a successful scan
    // shows the executor has them; they are the bundle's (the executor's loader, fetched from
    // spark.jars, delegates to the driver's context loader first).
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.origin");
    spark.sql("CREATE TABLE lake.origin.t (id BIGINT) USING lockstep");
    spark.sql("INSERT INTO lake.origin.t VALUES (1), (2)");
    assertThat(rows("SELECT id FROM lake.origin.t ORDER BY id")).containsExactly("[1]", "[2]");
    // A new table writes Parquet (zstd) through the bundle's relocated Parquet, on Spark's Hadoop
    // and zstd-jni; Spark's own Parquet stays Spark's.
    try (var files = Files.walk(warehouse.resolve("origin.db").resolve("t"))) {
      assertThat(files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith("data-")))
          .isNotEmpty()
          .allMatch(f -> f.endsWith(".parquet"));
    }
    assertThat(
            origin(Class.forName("org.apache.parquet.hadoop.ParquetWriter", false, jars))
                .getFileName()
                .toString())
        .isEqualTo("parquet-hadoop-1.13.1.jar");
    assertThat(
            origin(
                Class.forName(
                    "dev.lockstep.shaded.spark.org.apache.parquet.hadoop.ParquetWriter",
                    false,
                    jars)))
        .isEqualTo(bundle);
  }

  /**
   * Spark's own Jackson and Avro stay Spark's: the unrelocated names load from Spark's jars at
   * Spark's versions, the bundle's copies (Jackson 2.18, Avro 1.12) only under {@code
   * dev.lockstep.shaded.spark}, and both work in one session.
   */
  @Test
  void sparksJacksonAndAvroStaySparksBesideTheBundlesRelocatedCopies() throws Exception {
    assertThat(
            origin(Class.forName("com.fasterxml.jackson.databind.ObjectMapper", false, jars))
                .getFileName()
                .toString())
        .isEqualTo("jackson-databind-2.15.2.jar");
    assertThat(
            origin(Class.forName("org.apache.avro.Schema", false, jars)).getFileName().toString())
        .isEqualTo("avro-1.11.5.jar");
    assertThat(
            origin(Class.forName("org.apache.commons.lang3.StringUtils", false, jars))
                .getFileName()
                .toString())
        .startsWith("commons-lang3-3.12");
    for (String relocated :
        List.of(
            "dev.lockstep.shaded.spark.com.fasterxml.jackson.databind.ObjectMapper",
            "dev.lockstep.shaded.spark.org.apache.avro.Schema",
            "dev.lockstep.shaded.spark.org.apache.commons.compress.utils.IOUtils")) {
      assertThat(origin(Class.forName(relocated, false, jars))).as(relocated).isEqualTo(bundle);
    }
    Class<?> shadedVersion =
        Class.forName(
            "dev.lockstep.shaded.spark.com.fasterxml.jackson.databind.cfg.PackageVersion",
            true,
            jars);
    assertThat(shadedVersion.getField("VERSION").get(null).toString()).startsWith("2.18.");
    Class<?> sparkVersion =
        Class.forName("com.fasterxml.jackson.databind.cfg.PackageVersion", true, jars);
    assertThat(sparkVersion.getField("VERSION").get(null).toString()).isEqualTo("2.15.2");
    // Spark's Jackson (JSON functions) beside Lockstep's Avro-backed table.
    assertThat(rows("SELECT to_json(named_struct('a', 1, 'b', 'x'))"))
        .containsExactly("[{\"a\":1,\"b\":\"x\"}]");
  }

  /**
   * The bundle's listing: every class under {@code dev/lockstep/}, every third-party one under
   * {@code dev/lockstep/shaded/spark/}; nothing of Spark, Scala, Hadoop, SLF4J or Paimon; every
   * services file a Lockstep (or relocated) interface with providers in the jar; licenses listed.
   * And the byte code: Lockstep's classes in the bundle refer to no class outside it but the JDK's,
   * Spark's, Scala's and SLF4J's; the relocated libraries in addition only to the optional codecs
   * of Avro and Commons Compress that the engine never selects.
   */
  @Test
  void everyThirdPartyClassIsRelocatedUnderDevLockstepShadedSpark() throws Exception {
    BundleListing listing = BundleListing.of(bundle);
    listing.assertShadedOnlyUnder("dev/lockstep/shaded/spark/");
    listing.assertSelfContained(
        CATALOG_CLASS,
        "dev.lockstep.spark.LockstepSparkExtensions",
        "dev.lockstep.engine.table.FileStoreTable",
        "dev.lockstep.commit.SnapshotCommitter",
        "dev.lockstep.fs.local.LocalFileIOLoader",
        "dev.lockstep.shaded.spark.org.apache.avro.Schema",
        "dev.lockstep.shaded.spark.com.fasterxml.jackson.databind.ObjectMapper",
        "dev.lockstep.shaded.spark.org.apache.commons.compress.utils.IOUtils");
    assertThat(listing.resourcesOutside())
        .as("resources outside META-INF/ and dev/lockstep/")
        .isEmpty();
    String shaded = "dev/lockstep/shaded/spark/";
    Set<String> relocatedLibraries = new TreeSet<>();
    for (String name : listing.entries()) {
      if (name.startsWith(shaded) && name.endsWith(".class")) {
        String path = name.substring(shaded.length());
        relocatedLibraries.add(
            path.startsWith("org/roaringbitmap/")
                ? "org/roaringbitmap" // one library whose packages have two names
                : String.join("/", Arrays.copyOf(path.split("/"), 3)));
      }
    }
    assertThat(relocatedLibraries)
        .as("relocated libraries")
        .containsExactly(
            "com/fasterxml/jackson",
            "io/airlift/compress",
            "org/apache/avro",
            "org/apache/commons",
            "org/apache/parquet",
            "org/roaringbitmap",
            "shaded/parquet/com",
            "shaded/parquet/it",
            "shaded/parquet/net",
            "shaded/parquet/org");
    assertThat(listing.bundledArtifacts())
        .containsExactlyInAnyOrder(
            "dev.lockstep:lockstep-spark-bundle",
            "dev.lockstep:lockstep-spark",
            "dev.lockstep:lockstep-engine",
            "dev.lockstep:lockstep-lock-api",
            "com.fasterxml.jackson.core:jackson-core",
            "com.fasterxml.jackson.core:jackson-databind",
            "com.fasterxml.jackson.core:jackson-annotations",
            "org.apache.avro:avro",
            "org.apache.commons:commons-compress",
            "commons-io:commons-io",
            "org.apache.commons:commons-lang3",
            "commons-codec:commons-codec",
            "org.apache.parquet:parquet-hadoop",
            "org.apache.parquet:parquet-column",
            "org.apache.parquet:parquet-encoding",
            "org.apache.parquet:parquet-common",
            "org.apache.parquet:parquet-format-structures",
            "org.apache.parquet:parquet-jackson",
            "io.airlift:aircompressor",
            "commons-pool:commons-pool",
            // shaded into parquet-column (as shaded.parquet.net.openhft), relocated with it
            "net.openhft:zero-allocation-hashing");
    assertThat(listing.entries())
        .as("Spark, Scala, Hadoop, SLF4J, Paimon are the engine's")
        .noneMatch(
            name ->
                name.contains("org/apache/spark/")
                    || name.startsWith("scala/")
                    || name.contains("org/apache/hadoop/")
                    || name.contains("org/slf4j/")
                    || name.contains("org/apache/paimon/"));
    assertThat(listing.services())
        .containsEntry(
            "dev.lockstep.fs.FileIOLoader", List.of("dev.lockstep.fs.local.LocalFileIOLoader"));
    assertThat(listing.services().keySet())
        .as("services files")
        .allMatch(name -> name.startsWith("dev.lockstep."));
    // Shaded inside parquet-column; its license (Apache 2.0) is parquet-column's.
    listing.assertLicensesListed("net.openhft:zero-allocation-hashing");
    // RoaringBitmap's jar carries no Maven metadata, so the listing above cannot name it: its
    // classes are checked by the relocated libraries, its license here.
    assertThat(listing.text("META-INF/THIRD-PARTY.txt"))
        .contains("(org.roaringbitmap:RoaringBitmap:");

    Map<String, Set<String>> unrelocated = unrelocatedReferences(bundle);
    assertThat(unrelocated)
        .as("the scan sees the connector's use of Spark's API")
        .containsKeys("org/apache/spark/sql/connector/catalog", "org/apache/spark/sql/types");
    assertThat(unrelocated)
        .as("third-party packages the bundle's classes refer to, unrelocated")
        .allSatisfy(
            (pkg, users) ->
                assertThat(pkg)
                    .as("package %s, used by %s", pkg, users)
                    .matches(PROVIDED_OR_OPTIONAL));
    // The relocated libraries' optional codecs are referenced only by the relocated libraries.
    unrelocated.forEach(
        (pkg, users) -> {
          if (!pkg.matches(PROVIDED)) {
            assertThat(users)
                .as("classes referring to %s", pkg)
                .allMatch(user -> user.startsWith("dev/lockstep/shaded/spark/"));
          }
        });
  }

  /**
   * What the JDK and Spark provide: the JDK (java.xml too), Spark, Scala, SLF4J, and Hadoop (its
   * {@code Configuration} and compression interfaces, which Parquet's writer and reader use).
   */
  private static final String PROVIDED =
      "(java|javax|jdk|sun|org/w3c/dom|org/xml/sax|org/apache/spark|scala|org/slf4j"
          + "|org/apache/hadoop)(/.*)?";

  /**
   * Dependencies of the relocated Parquet, Avro and Commons Compress that are not bundled: the
   * Snappy and Zstandard codecs (JNI libraries, which cannot be relocated: the relocated Parquet
   * and Avro bind to Spark's unrelocated snappy-java and zstd-jni when a table's {@code
   * file.compression} is {@code zstd}, the Parquet default, or {@code snappy}), and the XZ and
   * Brotli codecs and ASM (Pack200), which the engine never selects; and Parquet's audience
   * annotations (Yetus), an annotation-only jar that no bundle carries (the JVM ignores a missing
   * annotation class; the Spark session tests write and read Parquet through these classes).
   */
  private static final String OPTIONAL =
      "(org/xerial/snappy|com/github/luben/zstd|org/tukaani/xz|org/brotli/dec|org/objectweb/asm"
          + "|org/apache/yetus/audience)(/.*)?";

  private static final String PROVIDED_OR_OPTIONAL = PROVIDED + "|" + OPTIONAL;

  /**
   * {@code spark/README.md}'s examples, as written: every statement of the {@code sql} block in
   * order, the rows shown in the comments after a statement checked exactly; then the spark-shell
   * block: its {@code spark.sql} statements run as SQL, its {@code DataFrameWriterV2} and read
   * calls made through the same Java API, with the resulting rows checked.
   */
  @Test
  void sparkReadmeExamplesRunAsWritten() throws Exception {
    int run = session.runReadmeSqlBlock();
    assertThat(run).as("statements run").isGreaterThanOrEqualTo(14);
    // After the README's rollback to snapshot 2 (the upsert): snapshot 2's content, the backfill
    // of 2024-05-02 undone.
    assertThat(rows("SELECT day, id, amount, note FROM lake.shop.orders ORDER BY day, id"))
        .containsExactly(
            "[2024-05-01,1,19.90,updated]",
            "[2024-05-01,2,5.00,null]",
            "[2024-05-02,1,1.00,later]");

    String readme = Files.readString(Path.of(required("lockstep.spark.readme")));
    String scala = block(readme, "```scala\n");
    Matcher statements = Pattern.compile("spark\\.sql\\(\"([^\"]+)\"\\)").matcher(scala);
    List<String> sqls = new ArrayList<>();
    while (statements.find()) {
      sqls.add(statements.group(1));
    }
    assertThat(sqls).hasSize(2);
    spark.sql(sqls.get(0)); // CREATE TABLE lake.shop.events
    // The block's DataFrameWriterV2 calls, made as written (the same calls through Java).
    assertThat(scala)
        .contains(
            "spark.range(0, 1000).selectExpr(\"'2024-05-01' AS dt\", \"id\", "
                + "\"CAST(id % 7 AS INT) AS v\")\n  .writeTo(\"lake.shop.events\").append()");
    spark
        .range(0, 1000)
        .selectExpr("'2024-05-01' AS dt", "id", "CAST(id % 7 AS INT) AS v")
        .writeTo("lake.shop.events")
        .append();
    assertThat(scala)
        .contains(
            "spark.range(0, 10).selectExpr(\"'2024-04-30' AS dt\", \"id\", "
                + "\"0 AS v\")\n  .writeTo(\"lake.shop.events\").overwritePartitions()");
    spark
        .range(0, 10)
        .selectExpr("'2024-04-30' AS dt", "id", "0 AS v")
        .writeTo("lake.shop.events")
        .overwritePartitions();
    assertThat(sqls.get(1)).isEqualTo("SELECT dt, count(*) FROM lake.shop.events GROUP BY dt");
    assertThat(rows(sqls.get(1))).containsExactly("[2024-04-30,10]", "[2024-05-01,1000]");
    assertThat(scala)
        .contains("spark.read.option(\"snapshot-id\", \"1\").table(\"lake.shop.events\").count()");
    assertThat(spark.read().option("snapshot-id", "1").table("lake.shop.events").count())
        .as("time travel to the first append")
        .isEqualTo(1000L);
    assertThat(
            rows(
                "SELECT count(*), sum(v), min(id), max(id) FROM lake.shop.events"
                    + " WHERE dt = '2024-05-01'"))
        .containsExactly("[1000," + sumOfIdMod7(1000) + ",0,999]");
    assertThat(rows("SELECT id, v FROM lake.shop.events WHERE dt = '2024-04-30' ORDER BY id"))
        .containsExactlyElementsOf(
            Stream.iterate(0, i -> i + 1)
                .limit(10)
                .map(i -> "[" + i + ",0]")
                .collect(Collectors.toList()));
  }

  /**
   * An append table and a primary-key table through the bundle: INSERT, INSERT OVERWRITE with a
   * static partition, with no partition clause (static mode: the whole table) and in dynamic
   * partition overwrite mode; one snapshot per statement; exact rows after each.
   */
  @Test
  void appendAndPrimaryKeyTablesWithStaticAndDynamicOverwrite() throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.rows");

    spark.sql(
        "CREATE TABLE lake.rows.log (dt STRING, id BIGINT, msg STRING) USING lockstep"
            + " PARTITIONED BY (dt)");
    spark.sql("INSERT INTO lake.rows.log VALUES ('a', 1, 'x'), ('a', 2, 'y'), ('b', 3, 'z')");
    spark.sql("INSERT INTO lake.rows.log VALUES ('a', 1, 'x')");
    String log = "SELECT dt, id, msg FROM lake.rows.log ORDER BY dt, id, msg";
    assertThat(rows(log))
        .as("an append table keeps both copies")
        .containsExactly("[a,1,x]", "[a,1,x]", "[a,2,y]", "[b,3,z]");
    spark.sql("INSERT OVERWRITE lake.rows.log PARTITION (dt = 'b') VALUES (4, 'w')");
    assertThat(rows(log)).containsExactly("[a,1,x]", "[a,1,x]", "[a,2,y]", "[b,4,w]");
    try {
      spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
      spark.sql("INSERT OVERWRITE lake.rows.log VALUES ('a', 5, 'v'), ('c', 6, 'u')");
      assertThat(rows(log))
          .as("dynamic: partitions a and c replaced, b kept")
          .containsExactly("[a,5,v]", "[b,4,w]", "[c,6,u]");
    } finally {
      spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    }
    spark.sql("INSERT OVERWRITE lake.rows.log VALUES ('d', 7, 't')");
    assertThat(rows(log))
        .as("static, no partition clause: the whole table")
        .containsExactly("[d,7,t]");
    assertThat(snapshots("rows", "log"))
        .as("one snapshot per write")
        .containsExactly(1L, 2L, 3L, 4L, 5L);
    // Each write one commit on the driver, under a commit user of its own (identifier 1).
    List<String> commits = new ArrayList<>();
    Set<String> commitUsers = new TreeSet<>();
    for (long id = 1; id <= 5; id++) {
      String json = Files.readString(warehouse.resolve("rows.db/log/snapshot/snapshot-" + id));
      commits.add(field(json, "commitKind") + "/" + field(json, "commitIdentifier"));
      commitUsers.add(field(json, "commitUser"));
    }
    assertThat(commits)
        .containsExactly("APPEND/1", "APPEND/1", "OVERWRITE/1", "OVERWRITE/1", "OVERWRITE/1");
    assertThat(commitUsers).hasSize(5).allMatch(user -> user.startsWith("spark-"));

    spark.sql(
        "CREATE TABLE lake.rows.users (region STRING, id BIGINT, name STRING) USING lockstep"
            + " PARTITIONED BY (region) TBLPROPERTIES ('primary-key' = 'region,id', 'bucket' = '2')");
    spark.sql(
        "INSERT INTO lake.rows.users VALUES ('eu', 1, 'ann'), ('eu', 2, 'bob'),"
            + " ('us', 3, 'cy')");
    spark.sql("INSERT INTO lake.rows.users VALUES ('eu', 1, 'anna'), ('us', 4, 'dan')");
    String users = "SELECT region, id, name FROM lake.rows.users ORDER BY region, id";
    assertThat(rows(users))
        .as("upsert by primary key")
        .containsExactly("[eu,1,anna]", "[eu,2,bob]", "[us,3,cy]", "[us,4,dan]");
    assertThat(rows("SELECT name FROM lake.rows.users WHERE region = 'eu' AND id > 1"))
        .as("partition filter pushed, id filter by Spark, one column")
        .containsExactly("[bob]");
    spark.sql("INSERT OVERWRITE lake.rows.users PARTITION (region = 'us') VALUES (5, 'eve')");
    assertThat(rows(users)).containsExactly("[eu,1,anna]", "[eu,2,bob]", "[us,5,eve]");
    try {
      spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
      spark.sql("INSERT OVERWRITE lake.rows.users VALUES ('eu', 9, 'zed')");
      assertThat(rows(users))
          .as("dynamic: eu replaced, us kept")
          .containsExactly("[eu,9,zed]", "[us,5,eve]");
    } finally {
      spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    }
    assertThat(snapshots("rows", "users")).containsExactly(1L, 2L, 3L, 4L);
    assertThat(rows("SHOW TABLES IN lake.rows"))
        .containsExactly("[rows,log,false]", "[rows,users,false]");
  }

  // ------------------------------------------------------------------------------------------

  private static List<String> rows(String sql) {
    return session.rows(sql);
  }

  private static List<Long> snapshots(String db, String table) throws IOException {
    return SparkSubmitSession.snapshots(warehouse, db, table);
  }

  /** A top-level string or number field of a snapshot file (JSON). */
  private static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"?([^\",}]+)").matcher(json);
    assertThat(m.find()).as("field %s in %s", name, json).isTrue();
    return m.group(1);
  }

  private static long sumOfIdMod7(int n) {
    long sum = 0;
    for (int id = 0; id < n; id++) {
      sum += id % 7;
    }
    return sum;
  }

  /**
   * The packages (e.g. {@code org/xerial/snappy}) of every class that a class of the jar refers to
   * in its constant pool and that the jar does not hold, with the referring classes; {@code
   * dev/lockstep/} and array descriptors aside.
   */
  private static Map<String, Set<String>> unrelocatedReferences(Path jar) throws IOException {
    Map<String, Set<String>> packages = new TreeMap<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      Set<String> own = new TreeSet<>();
      for (JarEntry entry : Collections.list(file.entries())) {
        if (entry.getName().endsWith(".class")) {
          own.add(entry.getName().substring(0, entry.getName().length() - ".class".length()));
        }
      }
      for (JarEntry entry : Collections.list(file.entries())) {
        if (!entry.getName().endsWith(".class")) {
          continue;
        }
        String user = entry.getName();
        try (InputStream in = file.getInputStream(entry)) {
          for (String referenced : classReferences(in)) {
            if (own.contains(referenced) || referenced.startsWith("dev/lockstep/")) {
              continue;
            }
            String pkg = referenced.substring(0, Math.max(0, referenced.lastIndexOf('/')));
            packages.computeIfAbsent(pkg, p -> new TreeSet<>()).add(user);
          }
        }
      }
    }
    return packages;
  }

  /** The internal names of the CONSTANT_Class entries of a class file (JVMS 4.4). */
  private static Set<String> classReferences(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    assertThat(data.readInt()).isEqualTo(0xCAFEBABE);
    data.readUnsignedShort();
    data.readUnsignedShort();
    int count = data.readUnsignedShort();
    String[] utf8 = new String[count];
    List<Integer> classIndexes = new ArrayList<>();
    for (int i = 1; i < count; i++) {
      int tag = data.readUnsignedByte();
      switch (tag) {
        case 1 -> utf8[i] = data.readUTF();
        case 7 -> classIndexes.add(data.readUnsignedShort());
        case 8, 16, 19, 20 -> data.readUnsignedShort();
        case 15 -> {
          data.readUnsignedByte();
          data.readUnsignedShort();
        }
        case 3, 4, 9, 10, 11, 12, 17, 18 -> data.readInt();
        case 5, 6 -> {
          data.readLong();
          i++;
        }
        default -> throw new IOException("constant pool tag " + tag);
      }
    }
    Set<String> names = new TreeSet<>();
    for (int index : classIndexes) {
      String name = utf8[index];
      if (name.startsWith("[")) {
        int l = name.indexOf('L');
        if (l < 0) {
          continue;
        }
        name = name.substring(l + 1, name.length() - 1);
      }
      names.add(name);
    }
    return names;
  }
}
