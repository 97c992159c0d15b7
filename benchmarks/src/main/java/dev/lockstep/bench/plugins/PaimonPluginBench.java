package dev.lockstep.bench.plugins;

import dev.lockstep.bench.report.Args;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

/**
 * Apache Paimon 1.3.1 with Lockstep's Paimon plugins, as a Paimon user runs them: this class sees
 * only Paimon's API, and the JVM that runs it has Paimon, the Hadoop client and either Lockstep's
 * bundle jars or Paimon's own {@code paimon-s3} on its class path ({@code benchmarks/run-paimon}
 * builds both class paths; the two cannot share one, Paimon refuses two loaders for {@code s3}).
 *
 * <p>Modes, one per JVM:
 *
 * <ul>
 *   <li>{@code commits --system S --committers 1,4,8 --seconds N}: K threads, each its own commit
 *       user on one append table (write-only), each writing 10 rows and committing as fast as it
 *       can; prints commits/s and the p50/p99/max of one commit call (prepare + commit).
 *   <li>{@code ingest --system S --rows N --commit-every M --scans K}: one writer, N rows into an
 *       append table, a commit every M rows; then K full scans one after another (default 5).
 *       Prints rows/s of the ingest and of the median scan, and every scan's seconds.
 * </ul>
 *
 * <p>Results are appended as tab-separated lines to {@code --out FILE}; {@link PluginReport} turns
 * them into the RESULTS.md section. Options: {@code --s3 URI}, {@code --zookeeper HOST:PORT},
 * {@code --jdbc URL}, {@code --access-key}, {@code --secret-key}, {@code --bucket}.
 */
public final class PaimonPluginBench {

  private static final int ROWS_PER_COMMIT = 10;

  /** Commits each committer completes before the measured window opens. */
  private static final int WARMUP_COMMITS = 2;

  private PaimonPluginBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    String mode = a.get("mode");
    String system = Args.required(a, "system");
    Map<String, String> options = catalogOptions(system, a);
    Path out = Paths.get(Args.required(a, "out"));
    String run = a.getOrDefault("run", Long.toString(System.currentTimeMillis()));
    if ("commits".equals(mode)) {
      int seconds = Integer.parseInt(a.getOrDefault("seconds", "10"));
      int warmup = Integer.parseInt(a.getOrDefault("warmup-seconds", "2"));
      for (String k : a.getOrDefault("committers", "1,4,8").split(",")) {
        int committers = Integer.parseInt(k.trim());
        String line =
            commits(
                options, system, "commits_" + run + "_" + committers, committers, warmup, seconds);
        append(out, line);
        System.out.println(line);
      }
    } else if ("ingest".equals(mode)) {
      long rows = Long.parseLong(a.getOrDefault("rows", "1000000"));
      long every = Long.parseLong(a.getOrDefault("commit-every", "250000"));
      int scans = Integer.parseInt(a.getOrDefault("scans", "5"));
      String line = ingest(options, system, "ingest_" + run, rows, every, scans);
      // The round this JVM belongs to (run-paimon alternates the systems' order round by round).
      line = line + "\t" + a.getOrDefault("round", "1");
      append(out, line);
      System.out.println(line);
    } else {
      throw new IllegalArgumentException("--mode commits|ingest expected, got " + mode);
    }
  }

  /** The catalog options of each system: the same warehouse bucket on the same s3proxy. */
  static Map<String, String> catalogOptions(String system, Map<String, String> a) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("warehouse", "s3://" + a.getOrDefault("bucket", "lockstep") + "/" + system);
    o.put("s3.endpoint", Args.required(a, "s3"));
    o.put("s3.access-key", Args.required(a, "access-key"));
    o.put("s3.secret-key", Args.required(a, "secret-key"));
    switch (system) {
      case "lockstep-s3":
        // Lockstep's s3 FileIO (lockstep-fs-s3-bundle): no lock, one conditional create.
        o.put("s3.path-style-access", "true");
        break;
      case "paimon-s3":
      case "paimon-s3+lockstep-zookeeper":
      case "paimon-s3+lockstep-jdbc":
        // Paimon's own paimon-s3 (Hadoop S3A inside).
        o.put("s3.path.style.access", "true");
        if (system.endsWith("zookeeper")) {
          o.put("lock.enabled", "true");
          o.put("lock.type", "lockstep-zookeeper");
          o.put("lock.zookeeper.connect-string", Args.required(a, "zookeeper"));
        } else if (system.endsWith("jdbc")) {
          o.put("lock.enabled", "true");
          o.put("lock.type", "lockstep-jdbc");
          o.put("lock.jdbc.url", Args.required(a, "jdbc"));
          o.put("lock.jdbc.user", a.getOrDefault("jdbc-user", "root"));
        }
        break;
      default:
        throw new IllegalArgumentException(
            "unknown --system "
                + system
                + " (expected lockstep-s3,"
                + " paimon-s3, paimon-s3+lockstep-zookeeper, paimon-s3+lockstep-jdbc)");
    }
    return o;
  }

  static String commits(
      Map<String, String> options,
      String system,
      String tableName,
      int committers,
      int warmupSeconds,
      int seconds)
      throws Exception {
    Identifier id = Identifier.create("bench", tableName);
    try (Catalog catalog =
        CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(options)))) {
      catalog.createDatabase("bench", true);
      catalog.createTable(id, schema(), false);
      Table table = catalog.getTable(id);
      // The window [windowStart, windowEnd] opens once every committer has completed its warm-up
      // commits and the warm-up time has passed; a commit counts when it completes inside it.
      long[] window = {Long.MAX_VALUE, Long.MAX_VALUE};
      AtomicBoolean stop = new AtomicBoolean(false);
      List<List<Long>> latencies = new ArrayList<>();
      long[] measuredCommits = new long[committers];
      long[] allCommits = new long[committers];
      long[] gaveUp = new long[committers];
      java.util.concurrent.CountDownLatch warmedUp =
          new java.util.concurrent.CountDownLatch(committers);
      ExecutorService pool = Executors.newFixedThreadPool(committers);
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < committers; w++) {
        int writer = w;
        List<Long> mine = new ArrayList<>();
        latencies.add(mine);
        done.add(
            pool.submit(
                () -> {
                  StreamWriteBuilder builder =
                      table
                          .newStreamWriteBuilder()
                          .withCommitUser("bench-" + tableName + "-" + writer);
                  try (StreamTableWrite write = builder.newWrite();
                      StreamTableCommit commit = builder.newCommit()) {
                    long c = 0;
                    while (!stop.get()) {
                      long start = System.nanoTime();
                      for (int r = 0; r < ROWS_PER_COMMIT; r++) {
                        write.write(row(writer * 1_000_000_000L + c * ROWS_PER_COMMIT + r));
                      }
                      List<CommitMessage> messages = write.prepareCommit(false, c);
                      try {
                        commit.commit(c, messages);
                      } catch (RuntimeException e) {
                        // Paimon gave the commit up after commit.max-retries conflicts (its
                        // default, 10):
                        // counted, and its rows are not expected in the table.
                        gaveUp[writer]++;
                        c++;
                        if (c == WARMUP_COMMITS) {
                          warmedUp.countDown();
                        }
                        continue;
                      }
                      long end = System.nanoTime();
                      c++;
                      allCommits[writer]++;
                      if (c == WARMUP_COMMITS) {
                        warmedUp.countDown();
                      }
                      synchronized (window) {
                        if (end >= window[0] && end <= window[1]) {
                          mine.add(end - start);
                          measuredCommits[writer]++;
                        }
                      }
                    }
                  } catch (Exception e) {
                    warmedUp.countDown();
                    throw e;
                  }
                  return null;
                }));
      }
      long elapsed;
      try {
        Thread.sleep(warmupSeconds * 1000L);
        warmedUp.await();
        long start = System.nanoTime();
        synchronized (window) {
          window[0] = start;
          window[1] = start + seconds * 1_000_000_000L;
        }
        Thread.sleep(seconds * 1000L);
        elapsed = window[1] - window[0];
      } finally {
        stop.set(true);
        pool.shutdown();
      }
      for (Future<?> f : done) {
        f.get();
      }
      long total = Arrays.stream(measuredCommits).sum();
      List<Long> all = new ArrayList<>();
      latencies.forEach(all::addAll);
      Collections.sort(all);
      // The check that no acknowledged commit is gone: rows in the table vs. commits acknowledged.
      long expectedRows = Arrays.stream(allCommits).sum() * ROWS_PER_COMMIT;
      long rows = count(catalog.getTable(id));
      return String.join(
          "\t",
          "commits",
          system,
          Integer.toString(committers),
          String.format(Locale.ROOT, "%.2f", total / (elapsed / 1e9)),
          ms(percentile(all, 0.50)),
          ms(percentile(all, 0.99)),
          ms(all.isEmpty() ? 0 : all.get(all.size() - 1)),
          Long.toString(total),
          Long.toString(expectedRows),
          Long.toString(rows),
          Long.toString(Arrays.stream(gaveUp).sum()));
    }
  }

  static String ingest(
      Map<String, String> options,
      String system,
      String tableName,
      long rows,
      long every,
      int scans)
      throws Exception {
    Identifier id = Identifier.create("bench", tableName);
    try (Catalog catalog =
        CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(options)))) {
      catalog.createDatabase("bench", true);
      catalog.createTable(id, schema(), false);
      Table table = catalog.getTable(id);
      StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("ingest");
      long start = System.nanoTime();
      try (StreamTableWrite write = builder.newWrite();
          StreamTableCommit commit = builder.newCommit()) {
        long c = 0;
        for (long i = 0; i < rows; i++) {
          write.write(row(i));
          if ((i + 1) % every == 0 || i + 1 == rows) {
            commit.commit(c, write.prepareCommit(false, c));
            c++;
          }
        }
      }
      long ingest = System.nanoTime() - start;
      // One scan alone is a fraction of a second: on a shared machine a burst of load decides it.
      // K scans back to back in this JVM, their median reported (the first one, cold, listed too).
      List<Long> times = new ArrayList<>();
      for (int i = 0; i < Math.max(1, scans); i++) {
        start = System.nanoTime();
        long read = count(catalog.getTable(id));
        times.add(System.nanoTime() - start);
        if (read != rows) {
          throw new IllegalStateException(system + ": scanned " + read + " rows, wrote " + rows);
        }
      }
      List<Long> sorted = new ArrayList<>(times);
      Collections.sort(sorted);
      long scan = sorted.get((sorted.size() - 1) / 2);
      StringBuilder each = new StringBuilder();
      for (long t : times) {
        each.append(each.length() == 0 ? "" : " ")
            .append(String.format(Locale.ROOT, "%.3f", t / 1e9));
      }
      return String.join(
          "\t",
          "ingest",
          system,
          Long.toString(rows),
          String.format(Locale.ROOT, "%.0f", rows / (ingest / 1e9)),
          String.format(Locale.ROOT, "%.0f", rows / (scan / 1e9)),
          String.format(Locale.ROOT, "%.2f", ingest / 1e9),
          String.format(Locale.ROOT, "%.2f", scan / 1e9),
          each.toString());
    }
  }

  private static Schema schema() {
    return Schema.newBuilder()
        .column("k", DataTypes.BIGINT())
        .column("v", DataTypes.BIGINT())
        .column("s", DataTypes.STRING())
        .option("bucket", "-1")
        .option("write-only", "true")
        .build();
  }

  private static final String PAD = "0123456789abcdef0123456789abcdef";

  private static InternalRow row(long k) {
    return GenericRow.of(
        k,
        k * 31,
        BinaryString.fromString(PAD.substring((int) (k % 16)) + PAD.substring(0, (int) (k % 16))));
  }

  private static long count(Table table) throws IOException {
    ReadBuilder reader = table.newReadBuilder();
    long n = 0;
    try (RecordReader<InternalRow> records =
        reader.newRead().createReader(reader.newScan().plan().splits())) {
      RecordReader.RecordIterator<InternalRow> batch;
      while ((batch = records.readBatch()) != null) {
        while (batch.next() != null) {
          n++;
        }
        batch.releaseBatch();
      }
    }
    return n;
  }

  private static long percentile(List<Long> sorted, double p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int i = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
  }

  private static void append(Path out, String line) throws IOException {
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(
        out,
        line + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
