package dev.lockstep.bench.lockstep;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Lockstep only: the time to plan a full scan at large live-file counts, reached by committing
 * data-file metadata without writing the data files (a plan reads only snapshots and manifests, so
 * its time is the same; writing 100,000 real files takes longer than the shared machine allows).
 * 100 buckets, 1,000 files per commit; plan through a fresh table object (nothing cached), median
 * of {@code --plans}. Reported in RESULTS.md section 11 beside the real-file measurements.
 *
 * <pre>MetadataPlanScale [--files 1000,10000,100000] [--plans 3] [--work DIR]
 *     [--compare-parallelism 1]</pre>
 */
public final class MetadataPlanScale {

  private MetadataPlanScale() {}

  /**
   * {@code --compare-parallelism N}: {@code plans} more plans in turns with {@code
   * scan.manifest.parallelism} N and the default, each through a fresh table object; prints the
   * median wall time and process CPU time (all threads) of each.
   */
  private static void compareParallelism(dev.lockstep.fs.Path warehouse, int plans, String other)
      throws Exception {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    List<Map<String, String>> settings =
        List.of(Map.of("scan.manifest.parallelism", other), Map.of());
    double[][] wall = new double[2][plans];
    double[][] cpu = new double[2][plans];
    for (int i = 0; i < plans; i++) {
      for (int turn = 0; turn < 2; turn++) {
        int s = i % 2 == 0 ? turn : 1 - turn;
        long cpu0 = os.getProcessCpuTime();
        long t = System.nanoTime();
        try (FileStoreTable fresh =
            new FileSystemCatalog(new LocalFileIO(), warehouse, settings.get(s))
                .getTable(new Identifier("bench", "t"))) {
          fresh.newScan().plan();
        }
        wall[s][i] = (System.nanoTime() - t) / 1e6;
        cpu[s][i] = (os.getProcessCpuTime() - cpu0) / 1e6;
      }
    }
    for (int s = 0; s < 2; s++) {
      Arrays.sort(wall[s]);
      Arrays.sort(cpu[s]);
      System.out.printf(
          Locale.ROOT,
          "  scan.manifest.parallelism %s: plan %.1f ms (median of %d, min %.1f), process CPU %.1f"
              + " ms (median)%n",
          s == 0 ? other : "default",
          wall[s][plans / 2],
          plans,
          wall[s][0],
          cpu[s][plans / 2]);
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new java.util.HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].substring(2), args[i + 1]);
    }
    int[] targets =
        Arrays.stream(a.getOrDefault("files", "1000,10000,100000").split(","))
            .mapToInt(s -> Integer.parseInt(s.trim()))
            .toArray();
    int plans = Integer.parseInt(a.getOrDefault("plans", "3"));
    Path dir =
        Files.createTempDirectory(
            Path.of(a.getOrDefault("work", System.getProperty("java.io.tmpdir"))),
            "lockstep-plan-scale");
    dev.lockstep.fs.Path warehouse = dev.lockstep.fs.Path.of(dir.toString());
    FileSystemCatalog catalog = new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of());
    FileStoreTable table =
        catalog.createTable(
            new Identifier("bench", "t"),
            Schema.newBuilder()
                .column("k", DataType.intType().notNull())
                .column("v", DataType.bigint())
                .column("s", DataType.string())
                .option("bucket", "100")
                .option("write-only", "true")
                .build());
    TableCommit commit = table.newCommit("files");
    long files = 0;
    long identifier = 0;
    for (int target : targets) {
      long t0 = System.nanoTime();
      while (files < target) {
        List<CommitMessage> messages = new ArrayList<>();
        for (int bucket = 0; bucket < 100; bucket++) {
          List<DataFileMeta> added = new ArrayList<>();
          for (int f = 0; f < 10; f++) {
            added.add(
                new DataFileMeta(
                    "data-" + identifier + "-" + bucket + "-" + f + ".parquet",
                    4096,
                    50,
                    null,
                    null,
                    0,
                    49,
                    0,
                    0,
                    System.currentTimeMillis(),
                    DataFileMeta.UNCOMMITTED));
          }
          messages.add(new CommitMessage("", bucket, 100, added, List.of(), List.of(), 0));
        }
        commit.commit(++identifier, messages);
        files += 1000;
      }
      double commitSeconds = (System.nanoTime() - t0) / 1e9;
      double[] times = new double[plans];
      long found = 0;
      for (int i = 0; i < plans; i++) {
        long t = System.nanoTime();
        try (FileStoreTable fresh =
            new FileSystemCatalog(new LocalFileIO(), warehouse, Map.of())
                .getTable(new Identifier("bench", "t"))) {
          found = 0;
          for (Split split : fresh.newScan().plan().splits()) {
            found += split.files().size();
          }
        }
        times[i] = (System.nanoTime() - t) / 1e6;
      }
      Arrays.sort(times);
      if (a.containsKey("compare-parallelism")) {
        compareParallelism(warehouse, plans, a.get("compare-parallelism"));
      }
      List<ManifestFileMeta> manifests =
          table.store().manifests(table.snapshotManager().latest().orElseThrow());
      long bytes = manifests.stream().mapToLong(ManifestFileMeta::fileSize).sum();
      System.out.printf(
          Locale.ROOT,
          "metadata-only plan lockstep at %d live files (%d snapshots, %d manifests, %.1f MB of"
              + " manifests): plan %.1f ms (median of %d; all %s), files found %d; commits to get"
              + " here %.1f s%n",
          files,
          identifier,
          manifests.size(),
          bytes / 1e6,
          times[plans / 2],
          plans,
          Arrays.toString(times),
          found,
          commitSeconds);
    }
    table.close();
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
