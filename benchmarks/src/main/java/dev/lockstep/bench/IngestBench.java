package dev.lockstep.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Issue 20's large ingest: one system, one table, in a JVM of its own (so that its peak heap is its
 * own): an unrecorded warm-up ingest into a throwaway table, then {@code --rows} rows into a fresh
 * one with {@link Workloads#ingest(BenchSystem, TableSpec, int, int, Path)} (one writer, int key,
 * bigint value, 32-character string, a commit every {@code --commit-every} rows), then one full
 * scan. Besides rows/s it reports the heap of the measured ingest (its scan excluded): the highest
 * heap in use, sampled every 10 ms and before each collection (garbage included, so it mostly shows
 * how much of {@code -Xmx} the collector let fill), the highest heap in use right after a full
 * collection (what the ingest kept live; 0 when no full collection ran), and the number of full
 * collections and the time spent in all collections, and the CPU time of the whole JVM during the
 * measured ingest (every thread, user and system), and the data files of the table's latest
 * snapshot after the ingest (how compacted the ingest left it; the last two columns).
 *
 * <pre>
 * java -Xmx512m -Dlockstep.bench.file-format=parquet -cp $CP dev.lockstep.bench.IngestBench \
 *     --system lockstep|paimon --table pk|append --rows 10000000 --commit-every 1000000 \
 *     [--warmup-rows 500000] [--out results.tsv] [--work DIR]
 * </pre>
 *
 * {@code pk}: primary key {@code k}, 4 buckets, compaction on (trigger 5), as workload 3 of {@link
 * SideBySide}; {@code append}: no key, 4 buckets (Paimon: {@code bucket-key = k}), the writer
 * compacting as each system does by default. Appends one TSV line to {@code --out}. Reported, never
 * asserted.
 */
public final class IngestBench {

  private IngestBench() {}

  public static void main(String[] args) throws Exception {
    String systemName = "lockstep";
    String tableKind = "pk";
    int rows = 10_000_000;
    int commitEvery = 1_000_000;
    int warmupRows = 500_000;
    Path out = null;
    Path work = Path.of(System.getProperty("java.io.tmpdir"));
    for (int i = 0; i + 1 < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--system" -> systemName = value;
        case "--table" -> tableKind = value;
        case "--rows" -> rows = Integer.parseInt(value);
        case "--commit-every" -> commitEvery = Integer.parseInt(value);
        case "--warmup-rows" -> warmupRows = Integer.parseInt(value);
        case "--out" -> out = Path.of(value);
        case "--work" -> work = Path.of(value);
        default -> throw new IllegalArgumentException("Unknown argument '" + args[i] + "'");
      }
    }
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException("Expected --name value pairs");
    }
    TableSpec spec =
        switch (tableKind) {
          case "pk" -> TableSpec.primaryKey(4, false, 5);
          case "append" -> TableSpec.append(4, false);
          default -> throw new IllegalArgumentException("--table pk or append: " + tableKind);
        };
    BenchSystem system = SideBySide.system(systemName);
    Path dir = Files.createTempDirectory(work, "lockstep-ingest-" + systemName + "-");
    try {
      if (warmupRows > 0) {
        Workloads.ingest(
            system, spec, warmupRows, Math.min(commitEvery, warmupRows), dir.resolve("warmup"));
        deleteTree(dir.resolve("warmup"));
      }
      System.gc();
      HeapWatch heap = HeapWatch.start();
      long cpuAtStart = processCpuNanos();
      long[] cpuAtEnd = {-1};
      long[] dataFiles = {-1};
      Workloads.Ingest result;
      try {
        result =
            Workloads.ingest(
                system,
                spec,
                rows,
                commitEvery,
                dir.resolve("measured"),
                table -> {
                  cpuAtEnd[0] = processCpuNanos();
                  heap.stopQuietly();
                  dataFiles[0] = table.planFiles();
                });
      } finally {
        heap.stop();
      }
      String line =
          String.format(
              Locale.ROOT,
              "%s\t%s\t%d\t%d\t%.2f\t%.0f\t%.2f\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.2f\t%d",
              system.name(),
              tableKind,
              result.rows(),
              result.commitEvery(),
              result.ingestSeconds(),
              result.rowsPerSecond(),
              result.scanSeconds(),
              result.rowsRead(),
              heap.peakUsedMb(),
              heap.peakAfterGcMb(),
              Runtime.getRuntime().maxMemory() >> 20,
              heap.fullCollections(),
              heap.gcSeconds(),
              (cpuAtEnd[0] - cpuAtStart) / 1e9,
              dataFiles[0]);
      System.out.println(
          "system\ttable\trows\tcommit_every\tingest_s\trows_per_s\tscan_s\trows_read"
              + "\tpeak_heap_used_mb\tpeak_heap_after_full_gc_mb\tmax_heap_mb\tfull_gcs"
              + "\tgc_s\tingest_cpu_s\tdata_files");
      System.out.println(line);
      if (out != null) {
        Files.writeString(out, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      }
    } finally {
      deleteTree(dir);
    }
  }

  /**
   * CPU time of every thread of this JVM so far (user and system), in nanoseconds: the measure to
   * compare on a loaded machine, where wall time depends on what else runs.
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** The heap's highest use, sampled, and its highest use after a collection (notifications). */
  static final class HeapWatch {
    private final AtomicLong peakUsed = new AtomicLong();
    private final AtomicLong peakAfterGc = new AtomicLong();
    private final AtomicLong fullCollections = new AtomicLong();
    private final long gcMillisAtStart = gcMillis();
    private volatile long gcMillisAtStop = -1;
    private final Thread sampler;
    private volatile boolean running = true;
    private final javax.management.NotificationListener listener;

    private HeapWatch() {
      sampler =
          new Thread(
              () -> {
                var memory = ManagementFactory.getMemoryMXBean();
                while (running) {
                  peakUsed.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                  try {
                    Thread.sleep(10);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "heap-sampler");
      sampler.setDaemon(true);
      listener =
          (notification, handback) -> {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                notification.getType())) {
              return;
            }
            GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
            long after = 0;
            long before = 0;
            for (Map.Entry<String, MemoryUsage> e :
                info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
              if (isHeapPool(e.getKey())) {
                after += e.getValue().getUsed();
              }
            }
            for (Map.Entry<String, MemoryUsage> e :
                info.getGcInfo().getMemoryUsageBeforeGc().entrySet()) {
              if (isHeapPool(e.getKey())) {
                before += e.getValue().getUsed();
              }
            }
            if (info.getGcAction().contains("major")) {
              // After a young collection the old generation still holds its garbage.
              peakAfterGc.accumulateAndGet(after, Math::max);
              fullCollections.incrementAndGet();
            }
            peakUsed.accumulateAndGet(before, Math::max);
          };
    }

    private static boolean isHeapPool(String pool) {
      for (var bean : ManagementFactory.getMemoryPoolMXBeans()) {
        if (bean.getName().equals(pool)) {
          return bean.getType() == java.lang.management.MemoryType.HEAP;
        }
      }
      return false;
    }

    static HeapWatch start() {
      HeapWatch watch = new HeapWatch();
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        ((NotificationEmitter) gc).addNotificationListener(watch.listener, null, null);
      }
      watch.sampler.start();
      return watch;
    }

    private static long gcMillis() {
      long total = 0;
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        total += Math.max(0, gc.getCollectionTime());
      }
      return total;
    }

    void stopQuietly() {
      try {
        stop();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    synchronized void stop() throws InterruptedException {
      if (gcMillisAtStop >= 0) {
        return;
      }
      gcMillisAtStop = gcMillis();
      running = false;
      sampler.join();
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        try {
          ((NotificationEmitter) gc).removeNotificationListener(listener);
        } catch (javax.management.ListenerNotFoundException ignored) {
          // not registered on this collector
        }
      }
    }

    long peakUsedMb() {
      return peakUsed.get() >> 20;
    }

    long peakAfterGcMb() {
      return peakAfterGc.get() >> 20;
    }

    long fullCollections() {
      return fullCollections.get();
    }

    double gcSeconds() {
      return (gcMillisAtStop - gcMillisAtStart) / 1e3;
    }
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
