package dev.lockstep.bench;

import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;

/**
 * The {@code lookup} changelog producer's write throughput on a table larger than the lookup
 * cache's memory bound, with and without its disk tier (issue 19): one writer commits batches of
 * upserts (5 % deletes) over random keys into a primary-key table ({@code k INT, v STRING}, 2
 * buckets, Parquet, {@code changelog-producer = lookup}, {@code lookup.cache-max-memory-size} small
 * against the table).
 *
 * <p>Systems: Lockstep on S3 (s3proxy 4.0.0 in this JVM, fs-s3's test server, in-memory store;
 * optionally {@code --latency-ms} more per store read opened, to stand for a remote store's time to
 * first byte) with {@code lookup.cache-max-disk-size} 0 (every lookup of a file not in memory is a
 * GET of the whole file) and unlimited (a local copy per file); Lockstep on the local store (no
 * disk tier there: the files are local already); Apache Paimon 1.3.1 on the local store with the
 * same producer and memory bound (the anchor; its lookup builds local sorted files). Each run in a
 * fresh warehouse, systems alternating over the rounds, after an unreported warm-up of each. Prints
 * a Markdown table: system, round, rows, commits, seconds, rows/s, store reads of data files
 * (Lockstep on S3: counted by a {@link FaultInjectingStore} around the store) and the bytes of the
 * lookup cache's local copies after the last commit. Reported, never asserted.
 *
 * <p>Arguments: {@code --rows N} (default 300000), {@code --keys K} (default 200000), {@code
 * --batch B} (default 20000), {@code --rounds R} (default 2), {@code --memory SIZE} (default {@code
 * 2 mb}), {@code --latency-ms L} (default 0), {@code --s3-only true} (only the two S3 systems).
 */
public final class LookupDiskBench {

  private LookupDiskBench() {}

  private record Result(
      String system, long rows, long commits, double seconds, long reads, long localBytes) {}

  private static long latencyMs;

  public static void main(String[] args) throws Exception {
    long rows = 300_000;
    int keys = 200_000;
    int batch = 20_000;
    int rounds = 2;
    String memory = "2 mb";
    boolean s3Only = false;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--rows" -> rows = Long.parseLong(args[i + 1]);
        case "--keys" -> keys = Integer.parseInt(args[i + 1]);
        case "--batch" -> batch = Integer.parseInt(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        case "--memory" -> memory = args[i + 1];
        case "--latency-ms" -> latencyMs = Long.parseLong(args[i + 1]);
        case "--s3-only" -> s3Only = Boolean.parseBoolean(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    List<String> systems =
        s3Only
            ? List.of("lockstep-s3-disk-off", "lockstep-s3-disk-on")
            : List.of(
                "lockstep-s3-disk-off", "lockstep-s3-disk-on", "lockstep-local", "paimon-local");
    List<Result> results = new ArrayList<>();
    try (S3ProxyServer server = S3ProxyServer.start()) {
      for (String system : systems) {
        run(server, system, Math.max(batch, rows / 10), keys, batch, memory, 7);
      }
      for (int round = 0; round < rounds; round++) {
        for (String system : systems) {
          results.add(run(server, system, rows, keys, batch, memory, 19 + round));
        }
      }
    }
    System.out.println(
        "| system | round | rows | commits | seconds | rows/s | store reads of data files"
            + " | local copies (MiB) |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    for (int round = 0; round < rounds; round++) {
      for (int s = 0; s < systems.size(); s++) {
        Result r = results.get(round * systems.size() + s);
        System.out.printf(
            "| %s | %d | %d | %d | %.1f | %.0f | %s | %s |%n",
            r.system(),
            round + 1,
            r.rows(),
            r.commits(),
            r.seconds(),
            r.rows() / r.seconds(),
            r.reads() < 0 ? "n/a" : String.valueOf(r.reads()),
            r.localBytes() < 0 ? "n/a" : String.format("%.1f", r.localBytes() / 1048576.0));
      }
    }
  }

  private static Result run(
      S3ProxyServer server, String system, long rows, int keys, int batch, String memory, long seed)
      throws Exception {
    java.nio.file.Path dir = Files.createTempDirectory("lockstep-lookup-bench");
    try {
      if (system.startsWith("paimon")) {
        return paimon(dir, rows, keys, batch, memory, seed);
      }
      AtomicLong reads = new AtomicLong();
      FileIO io;
      Path warehouse;
      if (system.contains("-s3-")) {
        warehouse = server.freshRoot();
        FaultInjectingStore counted = FaultInjectingStore.wrap(server.open(warehouse, Map.of()));
        counted.beforeLanding(
            Operation.READ,
            (op, path) -> {
              if (path.parent().name().startsWith("bucket-") && path.name().startsWith("data-")) {
                reads.incrementAndGet();
                if (latencyMs > 0) {
                  try {
                    Thread.sleep(latencyMs);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              }
            });
        io = counted;
      } else {
        warehouse = Path.of(dir.resolve("wh").toString());
        io = new LocalFileIO();
      }
      Map<String, String> options = new HashMap<>();
      options.put("bucket", "2");
      options.put("changelog-producer", "lookup");
      options.put("lookup.cache-max-memory-size", memory);
      options.put("lookup.cache-max-disk-size", system.endsWith("disk-off") ? "0" : "1 tb");
      options.put("lookup.cache-dir", dir.resolve("lookup-cache").toString());
      FileStoreTable table =
          new FileSystemCatalog(io, warehouse, Map.of())
              .createTable(
                  new Identifier("db", "t"),
                  Schema.newBuilder()
                      .column("k", DataType.intType())
                      .column("v", DataType.string())
                      .primaryKey("k")
                      .options(options)
                      .build());
      Random random = new Random(seed);
      long commits = 0;
      double seconds;
      long localBytes;
      long start = System.nanoTime();
      try (TableWrite write = table.newWrite("bench");
          TableCommit commit = table.newCommit("bench")) {
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
        seconds = (System.nanoTime() - start) / 1e9;
        localBytes = bytesUnder(dir.resolve("lookup-cache"));
      }
      table.close();
      return new Result(
          system,
          rows,
          commits,
          seconds,
          system.contains("-s3-") ? reads.get() : -1,
          system.contains("-s3-") ? localBytes : -1);
    } finally {
      try (Stream<java.nio.file.Path> files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static long bytesUnder(java.nio.file.Path root) throws java.io.IOException {
    if (!Files.exists(root)) {
      return 0;
    }
    try (Stream<java.nio.file.Path> all = Files.walk(root)) {
      return all.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private static Result paimon(
      java.nio.file.Path dir, long rows, int keys, int batch, String memory, long seed)
      throws Exception {
    Map<String, String> catalog = new HashMap<>();
    catalog.put("warehouse", dir.resolve("wh").toUri().toString());
    try (Catalog c =
        CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(catalog)))) {
      c.createDatabase("db", true);
      org.apache.paimon.catalog.Identifier id =
          org.apache.paimon.catalog.Identifier.create("db", "t");
      c.createTable(
          id,
          org.apache.paimon.schema.Schema.newBuilder()
              .column("k", DataTypes.INT().notNull())
              .column("v", DataTypes.STRING())
              .primaryKey("k")
              .option("bucket", "2")
              .option("file.format", "parquet")
              .option("changelog-producer", "lookup")
              .option("lookup.cache-max-memory-size", memory)
              .build(),
          false);
      Table table = c.getTable(id);
      Random random = new Random(seed);
      long commits = 0;
      java.nio.file.Path tmp = Files.createDirectories(dir.resolve("io-tmp"));
      long start = System.nanoTime();
      StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("bench");
      try (IOManager io = IOManager.create(tmp.toString());
          StreamTableWrite write = builder.newWrite();
          StreamTableCommit commit = builder.newCommit()) {
        write.withIOManager(io);
        long written = 0;
        while (written < rows) {
          int n = (int) Math.min(batch, rows - written);
          for (int i = 0; i < n; i++) {
            int key = random.nextInt(keys);
            if (random.nextInt(20) == 0) {
              write.write(
                  org.apache.paimon.data.GenericRow.ofKind(
                      org.apache.paimon.types.RowKind.DELETE, key, null));
            } else {
              write.write(
                  org.apache.paimon.data.GenericRow.of(
                      key, BinaryString.fromString("value-" + (written + i))));
            }
          }
          written += n;
          commits++;
          commit.commit(commits, write.prepareCommit(false, commits));
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      return new Result("paimon-local", rows, commits, seconds, -1, -1);
    }
  }
}
