package dev.lockstep.spark;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/** One local Spark session per test class, with a catalog {@code lake} on a fresh warehouse. */
abstract class SparkTestBase {

  static SparkSession spark;
  static java.nio.file.Path warehouse;

  /**
   * Starts the session: the test class's own {@code static SparkSession.Builder sessionBuilder()}
   * when it declares one (other master or settings), else {@code builder("local[4]")}.
   */
  @BeforeAll
  static void startSpark(TestInfo info) throws Exception {
    Class<?> testClass = info.getTestClass().orElseThrow();
    SparkSession.Builder builder;
    try {
      java.lang.reflect.Method m = testClass.getDeclaredMethod("sessionBuilder");
      m.setAccessible(true);
      builder = (SparkSession.Builder) m.invoke(null);
    } catch (NoSuchMethodException e) {
      builder = builder("local[4]");
    }
    start(builder);
  }

  static void start(SparkSession.Builder builder) {
    spark = builder.getOrCreate();
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.db");
  }

  static SparkSession.Builder builder(String master) throws IOException {
    warehouse = Files.createTempDirectory("lockstep-spark-");
    return SparkSession.builder()
        .master(master)
        .appName("lockstep-spark-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.extensions", LockstepSparkExtensions.class.getName())
        .config("spark.sql.catalog.lake", LockstepCatalog.class.getName())
        .config("spark.sql.catalog.lake.warehouse", warehouse.toString())
        .config("spark.sql.catalog.lake.snapshot.time-retained", "1 h");
  }

  @AfterAll
  static void stopSpark() {
    if (spark != null) {
      spark.stop();
      spark = null;
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
  }

  static List<Row> sql(String statement) {
    return spark.sql(statement).collectAsList();
  }

  static List<String> rows(String statement) {
    return sql(statement).stream().map(Row::toString).sorted().collect(Collectors.toList());
  }

  /** The engine's view of a table, for checks outside Spark. */
  static FileStoreTable engineTable(String db, String table) throws IOException {
    FileSystemCatalog catalog =
        new FileSystemCatalog(new LocalFileIO(), Path.of(warehouse.toString()), Map.of());
    return catalog.getTable(new Identifier(db, table));
  }
}
