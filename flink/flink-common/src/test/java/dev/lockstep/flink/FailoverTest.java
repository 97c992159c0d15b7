package dev.lockstep.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.flink.sink.LockstepSinks;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once across failover: a streaming job with checkpoints every 200 ms writes 200,000 rows
 * to a primary-key table and to an append table while an operator throws at 3 random rows; after it
 * finishes the tables equal the input exactly.
 */
class FailoverTest {

  static final int ROWS = 200_000;
  static final int KEYS = 50_000;
  static final int FAILURES = 3;

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  /** Rows at which the operator throws, each once (static: the job's tasks run in this JVM). */
  static final Set<Long> FAIL_AT = ConcurrentHashMap.newKeySet();

  static final Set<Long> FIRED = ConcurrentHashMap.newKeySet();
  static final AtomicInteger THROWN = new AtomicInteger();

  @TempDir Path dir;

  @Test
  void tablesEqualTheInputAfterThreeFailures() throws Exception {
    String warehouse = TestTables.warehouse(dir);
    TableLoader pk = TestTables.create(warehouse, "db.pk", true, 4, Map.of());
    TableLoader append = TestTables.create(warehouse, "db.append", false, 2, Map.of());
    long seed = System.nanoTime();
    Random random = new Random(seed);
    TreeSet<Long> points = new TreeSet<>();
    while (points.size() < FAILURES) {
      points.add(10_000L + random.nextInt(ROWS - 20_000));
    }
    FAIL_AT.addAll(points);
    System.out.println("FailoverTest seed " + seed + ", failing at rows " + points);

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "fixed-delay");
    conf.setString("restart-strategy.fixed-delay.attempts", "10");
    conf.setString("restart-strategy.fixed-delay.delay", "100 ms");
    env.configure(conf);
    env.enableCheckpointing(200);
    env.setParallelism(2);

    // One source subtask, so "the last value of a key" is well defined (input order).
    DataStream<Long> numbers = env.fromSequence(0, ROWS - 1).setParallelism(1);
    DataStream<Long> failing = numbers.map(new FailingMap()).setParallelism(1);
    DataStream<RowData> pkRows =
        failing
            .map(i -> (RowData) GenericRowData.of(i % KEYS, i), TestTables.ID_VALUE)
            .setParallelism(1);
    DataStream<RowData> appendRows =
        failing
            .map(i -> (RowData) GenericRowData.of(i, 2 * i), TestTables.ID_VALUE)
            .setParallelism(1);
    LockstepSinks.forTable(pk).commitUser("failover-pk").append(pkRows);
    LockstepSinks.forTable(append).commitUser("failover-append").append(appendRows);
    env.execute("failover");

    assertThat(THROWN.get()).isEqualTo(FAILURES);

    List<GenericRow> appended = TestTables.readAll(append);
    java.util.BitSet seen = new java.util.BitSet();
    appended.forEach(r -> seen.set((int) (long) (Long) r.get(0)));
    StringBuilder missing = new StringBuilder();
    for (int i = seen.nextClearBit(0); i < ROWS; i = seen.nextClearBit(i)) {
      int end = seen.nextSetBit(i);
      end = end < 0 ? ROWS : end;
      missing.append(i).append("..").append(end - 1).append(' ');
      i = end;
    }
    assertThat(missing.toString()).as("missing append rows").isEmpty();
    assertThat(appended).hasSize(ROWS);
    Map<Long, Long> byId = new HashMap<>();
    for (GenericRow r : appended) {
      assertThat(byId.put((Long) r.get(0), (Long) r.get(1))).as("row %s twice", r).isNull();
    }
    for (long i = 0; i < ROWS; i++) {
      assertThat(byId.get(i)).as("append row %d", i).isEqualTo(2 * i);
    }

    List<GenericRow> keyed = TestTables.readAll(pk);
    assertThat(keyed).hasSize(KEYS);
    for (GenericRow r : keyed) {
      long key = (Long) r.get(0);
      assertThat(r.get(1)).as("last value of key %d", key).isEqualTo(key + ROWS - KEYS);
    }
  }

  /** Throws once at each row of FAIL_AT; slows the input so that checkpoints fall between. */
  static final class FailingMap implements MapFunction<Long, Long> {
    @Override
    public Long map(Long i) throws Exception {
      if (FAIL_AT.contains(i) && FIRED.add(i)) {
        THROWN.incrementAndGet();
        throw new RuntimeException("Injected failure at row " + i);
      }
      if (i % 100 == 0) {
        Thread.sleep(1);
      }
      return i;
    }
  }
}
