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

/** One local Spark session per test class, with a catalog {@code lake} on a fresh warehouse. */
abstract class SparkTestBase {

  static SparkSession spark;
  static java.nio.file.Path warehouse;

  /** The master; override with a static method hiding this one is not possible, so a property. */
  static String master = "local[4]";

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("lockstep-spark-");
    spark = builder().getOrCreate();
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.db");
  }

  static SparkSession.Builder builder() {
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
    FileSystemCatalog catalog = new FileSystemCatalog(new LocalFileIO(),
        Path.of(warehouse.toString()), Map.of());
    return catalog.getTable(new Identifier(db, table));
  }
}
