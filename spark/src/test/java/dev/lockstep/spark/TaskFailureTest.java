package dev.lockstep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.maintenance.OrphanFilesCleaner;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Failed and duplicate task attempts: rows exact, and no file of theirs left behind (orphan removal
 * with a zero guard, run after the writes, finds nothing).
 *
 * <p>Local mode with two attempts per task ({@code local[4,2]}) and speculation on. Spark never
 * launches a speculative copy on a host that already runs an attempt of the task, and local mode
 * has one host, so a real speculative copy cannot happen here; {@link
 * #duplicateAttemptsOfAPartitionCommitOnce} drives the same DataSource V2 calls Spark makes for one
 * (two attempts of a partition both finishing, one denied by the commit coordinator).
 */
class TaskFailureTest extends SparkTestBase {

  static final AtomicInteger FAILURES = new AtomicInteger();

  static org.apache.spark.sql.SparkSession.Builder sessionBuilder() throws IOException {
    return builder("local[4,2]")
        .config("spark.speculation", "true")
        .config("spark.speculation.interval", "50ms")
        .config("spark.speculation.multiplier", "1.1")
        .config("spark.speculation.quantile", "0.5");
  }

  @BeforeAll
  static void registerUdf() {
    spark
        .udf()
        .register(
            "fail_once",
            (UDF1<Long, Long>)
                id -> {
                  TaskContext task = TaskContext.get();
                  if (task.partitionId() == 1 && task.attemptNumber() == 0 && id % 1000 == 700) {
                    FAILURES.incrementAndGet();
                    throw new IllegalStateException("injected failure of the first attempt");
                  }
                  return id;
                },
            DataTypes.LongType);
  }

  private static void assertNoOrphans(String table) throws IOException {
    try (FileStoreTable t = engineTable("db", table)) {
      assertThat(new OrphanFilesCleaner(t, Duration.ZERO, true).clean().removed()).isEmpty();
    }
  }

  private static long dataFiles(String table) throws IOException {
    try (Stream<java.nio.file.Path> files = Files.walk(warehouse.resolve("db.db").resolve(table))) {
      return files.filter(p -> p.getFileName().toString().startsWith("data-")).count();
    }
  }

  @Test
  void aTaskThatFailsOnceIsRetriedAndLeavesNoFiles() throws Exception {
    // A tiny write buffer: the failing attempt has flushed files before it fails.
    sql(
        "CREATE TABLE lake.db.retried (id BIGINT NOT NULL, s STRING) USING lockstep"
            + " TBLPROPERTIES ('bucket' = '2', 'write-buffer-size' = '1 kb')");
    sql(
        "INSERT INTO lake.db.retried SELECT fail_once(id), CAST(id AS STRING)"
            + " FROM range(0, 4000, 1, 4)");
    assertThat(FAILURES.get()).isEqualTo(1);
    assertThat(
            sql("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM lake.db.retried")
                .get(0)
                .toString())
        .isEqualTo("[4000,4000,0,3999]");
    assertThat(dataFiles("retried")).isGreaterThan(4);
    assertNoOrphans("retried");
  }

  @Test
  void duplicateAttemptsOfAPartitionCommitOnce() throws Exception {
    sql(
        "CREATE TABLE lake.db.dup (id BIGINT NOT NULL, s STRING) USING lockstep"
            + " TBLPROPERTIES ('bucket' = '2', 'write-buffer-size' = '1 kb')");
    LockstepCatalog catalog =
        (LockstepCatalog) spark.sessionState().catalogManager().catalog("lake");
    LockstepSparkTable table =
        (LockstepSparkTable) catalog.loadTable(Identifier.of(new String[] {"db"}, "dup"));
    StructType schema = table.schema();
    LogicalWriteInfo info =
        new LogicalWriteInfo() {
          @Override
          public CaseInsensitiveStringMap options() {
            return new CaseInsensitiveStringMap(Map.of());
          }

          @Override
          public String queryId() {
            return "speculation-test";
          }

          @Override
          public StructType schema() {
            return schema;
          }
        };
    BatchWrite batch = table.newWriteBuilder(info).build().toBatch();
    DataWriterFactory factory = batch.createBatchWriterFactory(null);
    // Partition 0: the original (task 10) and a speculative copy (task 11) both finish and both
    // messages reach the driver; Spark picks one. Partition 1: a copy (task 13) is denied by the
    // commit coordinator and aborted after writing.
    WriterCommitMessage original = write(factory, 0, 10, 0, 100, true);
    WriterCommitMessage copy = write(factory, 0, 11, 0, 100, true);
    WriterCommitMessage other = write(factory, 1, 12, 100, 200, true);
    write(factory, 1, 13, 100, 200, false);
    batch.onDataWriterCommit(original);
    batch.onDataWriterCommit(copy);
    batch.onDataWriterCommit(other);
    assertThat(dataFiles("dup"))
        .as("files of the 3 attempts that finished, 2 buckets each")
        .isGreaterThanOrEqualTo(6);
    batch.commit(new WriterCommitMessage[] {copy, other});

    assertThat(sql("SELECT count(*), count(DISTINCT id) FROM lake.db.dup").get(0).toString())
        .isEqualTo("[200,200]");
    assertNoOrphans("dup");
  }

  private static WriterCommitMessage write(
      DataWriterFactory factory, int partition, long task, long from, long to, boolean commit)
      throws IOException {
    DataWriter<InternalRow> writer = factory.createWriter(partition, task);
    try {
      for (long id = from; id < to; id++) {
        writer.write(new GenericInternalRow(new Object[] {id, UTF8String.fromString("v" + id)}));
      }
      if (commit) {
        return writer.commit();
      }
      writer.abort();
      return null;
    } finally {
      writer.close();
    }
  }
}
