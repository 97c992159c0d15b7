package dev.lockstep.bench;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Write throughput of the changelog producers (issue 19): the same primary-key workload, one writer
 * committing batches of upserts (and 5 % deletes) over random keys, into a table with {@code
 * changelog-producer} = {@code none}, {@code input} and {@code lookup} in turn, on the local store.
 * Each producer runs in a fresh warehouse, alternating producers over the rounds, after one
 * unreported warm-up run of each (a tenth of the rows). Prints a Markdown table: producer, rows
 * written, commits, seconds, rows/s, changelog rows, and the rows/s relative to {@code none}.
 * Reported, never asserted.
 *
 * <p>Arguments: {@code --rows N} (per run, default 400000), {@code --keys K} (default 100000),
 * {@code --batch B} (rows per commit, default 20000), {@code --rounds R} (default 2).
 */
public final class ChangelogProducerBench {

  private ChangelogProducerBench() {}

  private record Result(String producer, long rows, long commits, double seconds, long changelog) {}

  public static void main(String[] args) throws Exception {
    long rows = 400_000;
    int keys = 100_000;
    int batch = 20_000;
    int rounds = 2;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--rows" -> rows = Long.parseLong(args[i + 1]);
        case "--keys" -> keys = Integer.parseInt(args[i + 1]);
        case "--batch" -> batch = Integer.parseInt(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    List<String> producers = List.of("none", "input", "lookup");
    // Warm-up (JIT, caches of the class loader), not reported.
    for (String producer : producers) {
      run(producer, Math.max(1, rows / 10), keys, batch, 7);
    }
    Map<String, List<Result>> results = new java.util.LinkedHashMap<>();
    for (int round = 0; round < rounds; round++) {
      for (String producer : producers) {
        results
            .computeIfAbsent(producer, p -> new ArrayList<>())
            .add(run(producer, rows, keys, batch, 19 + round));
      }
    }
    System.out.println(
        "| producer | round | rows | commits | seconds | rows/s | changelog rows | vs none |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    for (int round = 0; round < rounds; round++) {
      double none = rate(results.get("none").get(round));
      for (String producer : producers) {
        Result r = results.get(producer).get(round);
        System.out.printf(
            "| %s | %d | %d | %d | %.1f | %.0f | %d | %.2fx |%n",
            producer,
            round + 1,
            r.rows(),
            r.commits(),
            r.seconds(),
            rate(r),
            r.changelog(),
            rate(r) / none);
      }
    }
  }

  private static double rate(Result r) {
    return r.rows() / r.seconds();
  }

  private static Result run(String producer, long rows, int keys, int batch, long seed)
      throws Exception {
    java.nio.file.Path dir = Files.createTempDirectory("lockstep-changelog-bench");
    try {
      FileSystemCatalog catalog =
          new FileSystemCatalog(new LocalFileIO(), Path.of(dir.toString()), Map.of());
      FileStoreTable table =
          catalog.createTable(
              new Identifier("db", "t"),
              Schema.newBuilder()
                  .column("k", DataType.intType())
                  .column("v", DataType.string())
                  .primaryKey("k")
                  .option("bucket", "2")
                  .option("changelog-producer", producer)
                  .build());
      Random random = new Random(seed);
      long commits = 0;
      long start = System.nanoTime();
      try (TableWrite write = table.newWrite("bench")) {
        TableCommit commit = table.newCommit("bench");
        long written = 0;
        while (written < rows) {
          int n = (int) Math.min(batch, rows - written);
          for (int i = 0; i < n; i++) {
            int key = random.nextInt(keys);
            if (random.nextInt(20) == 0) {
              write.write(RowKind.DELETE, GenericRow.of(key, null));
            } else {
              write.write(GenericRow.of(key, "value-" + (written + i)));
            }
          }
          written += n;
          commit.commit(++commits, write.prepareCommit());
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long changelog = 0;
      StreamTableScan stream =
          table.copyWithOptions(Map.of("scan.snapshot-id", "1")).newStreamScan();
      if (!producer.equals("none")) {
        for (Optional<StreamTableScan.Changes> c = stream.next();
            c.isPresent();
            c = stream.next()) {
          changelog += c.get().rows().size();
        }
      }
      table.close();
      return new Result(producer, rows, commits, seconds, changelog);
    } finally {
      try (Stream<java.nio.file.Path> files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
