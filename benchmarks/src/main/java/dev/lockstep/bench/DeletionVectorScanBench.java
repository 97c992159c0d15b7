package dev.lockstep.bench;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableRead;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Scan time of a primary-key table with deletion vectors against the same table without (issue 19):
 * both get the same load and the same update batches (random keys, a few deletes, one commit each,
 * no compaction in between, so each bucket holds several overlapping sorted runs); then full scans
 * and one-column scans alternate between the two tables, and the median times are compared. Also
 * reports the write time of each table (the vectors' cost, paid at commit). Reported, never
 * asserted.
 *
 * <p>Arguments: {@code --keys K} (default 200000), {@code --updates U} (update commits, default 6),
 * {@code --fraction F} (keys rewritten per update, default 0.2), {@code --rounds R} (timed scans
 * per table and kind, default 7).
 */
public final class DeletionVectorScanBench {

  private DeletionVectorScanBench() {}

  public static void main(String[] args) throws Exception {
    int keys = 200_000;
    int updates = 6;
    double fraction = 0.2;
    int rounds = 7;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--keys" -> keys = Integer.parseInt(args[i + 1]);
        case "--updates" -> updates = Integer.parseInt(args[i + 1]);
        case "--fraction" -> fraction = Double.parseDouble(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    java.nio.file.Path dir = Files.createTempDirectory("lockstep-dv-bench");
    try {
      FileSystemCatalog catalog =
          new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of());
      // Warm-up of the write path (JIT), not reported.
      load(create(catalog, "warm_plain", false), keys / 10, updates, fraction);
      load(create(catalog, "warm_vectors", true), keys / 10, updates, fraction);
      FileStoreTable plain = create(catalog, "plain", false);
      FileStoreTable vectors = create(catalog, "vectors", true);
      double writePlain = load(plain, keys, updates, fraction);
      double writeVectors = load(vectors, keys, updates, fraction);
      long files = plain.newScan().plan().splits().stream().mapToLong(s -> s.files().size()).sum();
      long expected = count(plain, null);
      if (count(vectors, null) != expected) {
        throw new AssertionError("the two tables read different row counts");
      }
      // Warm-up, not reported.
      for (int i = 0; i < 2; i++) {
        count(plain, null);
        count(vectors, null);
      }
      Map<String, double[]> times = new HashMap<>();
      for (String kind : List.of("full", "one column")) {
        double[] p = new double[rounds];
        double[] v = new double[rounds];
        String[] projection = kind.equals("full") ? null : new String[] {"v"};
        for (int r = 0; r < rounds; r++) {
          p[r] = time(plain, projection);
          v[r] = time(vectors, projection);
        }
        times.put(kind + "/plain", p);
        times.put(kind + "/vectors", v);
      }
      System.out.printf(
          "%d keys, %d update commits of %.0f %% of the keys (5 %% of them deletes), 2 buckets,"
              + " %d data files, %d live rows%n%n",
          keys, updates, fraction * 100, files, expected);
      System.out.println(
          "| scan | without vectors (median ms) | with vectors (median ms) | speed-up |");
      System.out.println("|---|---|---|---|");
      for (String kind : List.of("full", "one column")) {
        double p = median(times.get(kind + "/plain"));
        double v = median(times.get(kind + "/vectors"));
        System.out.printf("| %s | %.0f | %.0f | %.2fx |%n", kind, p, v, p / v);
      }
      System.out.println();
      System.out.printf(
          "Writing (load and updates): %.1f s without vectors, %.1f s with (%.2fx the time).%n",
          writePlain, writeVectors, writeVectors / writePlain);
      plain.close();
      vectors.close();
    } finally {
      try (Stream<java.nio.file.Path> all = Files.walk(dir)) {
        all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static FileStoreTable create(FileSystemCatalog catalog, String name, boolean vectors)
      throws Exception {
    return catalog.createTable(
        new Identifier("db", name),
        Schema.newBuilder()
            .column("k", DataType.intType())
            .column("v", DataType.string())
            .column("n", DataType.bigint())
            .primaryKey("k")
            .option("bucket", "2")
            .option("num-sorted-run.compaction-trigger", "50")
            .option("num-sorted-run.stop-trigger", "60")
            .option("deletion-vectors.enabled", Boolean.toString(vectors))
            .build());
  }

  /** Loads every key, then the update commits; returns the seconds taken. */
  private static double load(FileStoreTable table, int keys, int updates, double fraction)
      throws Exception {
    long start = System.nanoTime();
    TableCommit commit = table.newCommit("bench");
    try (TableWrite write = table.newWrite("bench")) {
      for (int k = 0; k < keys; k++) {
        write.write(GenericRow.of(k, "value-" + k + "-initial", (long) k));
      }
      commit.commit(1, write.prepareCommit());
      Random random = new Random(42);
      for (int u = 0; u < updates; u++) {
        int n = (int) (keys * fraction);
        for (int i = 0; i < n; i++) {
          int k = random.nextInt(keys);
          if (random.nextInt(20) == 0) {
            write.write(dev.lockstep.engine.data.RowKind.DELETE, GenericRow.of(k, null, 0L));
          } else {
            write.write(GenericRow.of(k, "value-" + k + "-update-" + u, (long) u));
          }
        }
        commit.commit(u + 2, write.prepareCommit());
      }
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private static double time(FileStoreTable table, String[] projection) throws Exception {
    long start = System.nanoTime();
    count(table, projection);
    return (System.nanoTime() - start) / 1e6;
  }

  private static long count(FileStoreTable table, String[] projection) throws Exception {
    TableScan.Plan plan = table.newScan().plan();
    TableRead read = table.newRead();
    if (projection != null) {
      read.withProjection(projection);
    }
    long[] rows = {0};
    for (Split split : plan.splits()) {
      read.forEach(split, (GenericRow r) -> rows[0]++);
    }
    return rows[0];
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
