package dev.lockstep.bench.scan;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.predicate.Predicate;
import dev.lockstep.engine.predicate.PredicateBuilder;
import dev.lockstep.engine.predicate.ScanMetrics;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableRead;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

/**
 * Scans side by side with Apache Paimon 1.3.1 (issue 20): an append table of 10 columns (a
 * clustered {@code c BIGINT}, the row's position in the ingest, then {@code k INT}, four BIGINTs,
 * three 16-character STRINGs and a DOUBLE), both systems on their defaults (Parquet, zstd), loaded
 * in {@code --commits} batch commits; then, each {@code --repeat} times after one warm-up, a full
 * scan, a projected scan ({@code c} and {@code v1}: 2 of 10 columns) and a filtered scan ({@code c}
 * in a 1 % range, exact: Paimon with {@code executeFilter()}). Every value read is folded into a
 * checksum, so that neither side can skip decoding what it returns. Prints one TSV line per system
 * and query (median seconds) and writes them to {@code --out}.
 *
 * <pre>
 * java -Xmx2g -cp $CP dev.lockstep.bench.scan.ScanBench --rows 2000000 --commits 10 --repeat 3
 * </pre>
 *
 * <p>{@code --alternate true} runs the two systems in turns instead of one after the other and also
 * reports process CPU time (see {@link #alternating}).
 */
public final class ScanBench {

  private ScanBench() {}

  public static void main(String[] args) throws Exception {
    long rows = 2_000_000;
    int commits = 10;
    int repeat = 3;
    Path out = null;
    boolean alternate = false;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--rows" -> rows = Long.parseLong(args[i + 1]);
        case "--commits" -> commits = Integer.parseInt(args[i + 1]);
        case "--repeat" -> repeat = Integer.parseInt(args[i + 1]);
        case "--out" -> out = Path.of(args[i + 1]);
        case "--alternate" -> alternate = Boolean.parseBoolean(args[i + 1]);
        default ->
            throw new IllegalArgumentException(
                "Unknown argument '"
                    + args[i]
                    + "'; use --rows N --commits N --repeat N --out FILE [--alternate true]");
      }
    }
    Path work = Files.createTempDirectory("lockstep-scan-bench");
    List<String> lines = new ArrayList<>();
    lines.add("system\tquery\trows\tmedian_s\tall_s");
    long lo = rows / 2;
    long hi = lo + rows / 100;
    if (alternate) {
      lines.set(0, "system\tquery\trows\tmedian_s\tall_s\tmedian_cpu_s");
      alternating(work, rows, commits, repeat, lo, hi, lines);
      if (out != null) {
        Files.write(out, lines);
      }
      System.err.println("work directory (delete when done): " + work);
      return;
    }
    for (String system : List.of("lockstep", "paimon")) {
      Scans scans =
          system.equals("lockstep")
              ? new LockstepScans(work.resolve("lockstep"), rows, commits, lo, hi)
              : new PaimonScans(work.resolve("paimon"), rows, commits, lo, hi);
      for (String query : List.of("full", "projected", "filtered")) {
        scans.run(query); // warm-up
        double[] seconds = new double[repeat];
        long count = 0;
        for (int r = 0; r < repeat; r++) {
          long start = System.nanoTime();
          count = scans.run(query);
          seconds[r] = (System.nanoTime() - start) / 1e9;
        }
        double[] sorted = seconds.clone();
        Arrays.sort(sorted);
        String line =
            String.format(
                Locale.ROOT,
                "%s\t%s\t%d\t%.3f\t%s",
                system,
                query,
                count,
                sorted[repeat / 2],
                Arrays.toString(seconds));
        System.out.println(line);
        lines.add(line);
      }
      scans.close();
    }
    if (out != null) {
      Files.write(out, lines);
    }
    try (PrintStream err = System.err) {
      err.println("work directory (delete when done): " + work);
    }
  }

  /**
   * {@code --alternate true}: both tables loaded first, then per query one warm-up of each system
   * and {@code repeat} rounds in which the two systems take turns (Lockstep first in even rounds,
   * Paimon first in odd ones), so that both meet the same load; besides the wall time it reports
   * the JVM's process CPU time per query (every thread: the reader's, the JIT's and the GC's),
   * which a loaded machine disturbs much less.
   */
  private static void alternating(
      Path work, long rows, int commits, int repeat, long lo, long hi, List<String> lines)
      throws Exception {
    String[] names = {"lockstep", "paimon"};
    Scans[] systems = {
      new LockstepScans(work.resolve("lockstep"), rows, commits, lo, hi),
      new PaimonScans(work.resolve("paimon"), rows, commits, lo, hi)
    };
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    for (String query : List.of("full", "projected", "filtered")) {
      double[][] wall = new double[2][repeat];
      double[][] cpu = new double[2][repeat];
      long[] count = new long[2];
      for (Scans scans : systems) {
        scans.run(query); // warm-up
      }
      for (int r = 0; r < repeat; r++) {
        for (int turn = 0; turn < 2; turn++) {
          int s = r % 2 == 0 ? turn : 1 - turn;
          long cpu0 = os.getProcessCpuTime();
          long start = System.nanoTime();
          count[s] = systems[s].run(query);
          wall[s][r] = (System.nanoTime() - start) / 1e9;
          cpu[s][r] = (os.getProcessCpuTime() - cpu0) / 1e9;
        }
      }
      for (int s = 0; s < 2; s++) {
        double[] sortedWall = wall[s].clone();
        Arrays.sort(sortedWall);
        double[] sortedCpu = cpu[s].clone();
        Arrays.sort(sortedCpu);
        String line =
            String.format(
                Locale.ROOT,
                "%s\t%s\t%d\t%.3f\t%s\t%.3f",
                names[s],
                query,
                count[s],
                sortedWall[repeat / 2],
                Arrays.toString(wall[s]),
                sortedCpu[repeat / 2]);
        System.out.println(line);
        lines.add(line);
      }
    }
    for (Scans scans : systems) {
      scans.close();
    }
  }

  private static String text(long i, int column) {
    return String.format(Locale.ROOT, "%016x", (i * 0x9E3779B97F4A7C15L) ^ column);
  }

  /** The three queries of one system. */
  private interface Scans extends AutoCloseable {
    /** Runs a query; returns the number of rows. */
    long run(String query) throws Exception;
  }

  private static final class LockstepScans implements Scans {
    private final FileStoreTable table;
    private final Predicate filter;
    static long checksum;

    LockstepScans(Path dir, long rows, int commits, long lo, long hi) throws Exception {
      Files.createDirectories(dir);
      FileSystemCatalog catalog =
          new FileSystemCatalog(
              new LocalFileIO(), dev.lockstep.fs.Path.of(dir.toString()), java.util.Map.of());
      dev.lockstep.engine.schema.Schema.Builder schema =
          dev.lockstep.engine.schema.Schema.newBuilder()
              .column("c", DataType.bigint())
              .column("k", DataType.intType());
      for (int v = 1; v <= 4; v++) {
        schema.column("v" + v, DataType.bigint());
      }
      for (int s = 1; s <= 3; s++) {
        schema.column("s" + s, DataType.string());
      }
      schema.column("d", DataType.doubleType());
      table =
          catalog.createTable(
              new dev.lockstep.engine.catalog.Identifier("bench", "scan"), schema.build());
      long perCommit = rows / commits;
      long i = 0;
      var commit = table.newCommit("load");
      for (int c = 1; c <= commits; c++) {
        try (TableWrite write = table.newWrite("load")) {
          long end = c == commits ? rows : i + perCommit;
          for (; i < end; i++) {
            write.write(
                GenericRow.of(
                    i,
                    (int) (i % 1000),
                    i * 3,
                    i * 5,
                    i * 7,
                    i * 11,
                    text(i, 1),
                    text(i, 2),
                    text(i, 3),
                    i * 0.5));
          }
          commit.commit(c, write.prepareCommit());
        }
      }
      PredicateBuilder b = new PredicateBuilder(table.schema().rowType());
      filter = PredicateBuilder.and(b.greaterOrEqual("c", lo), b.lessThan("c", hi));
    }

    @Override
    public long run(String query) throws Exception {
      ScanMetrics metrics = new ScanMetrics();
      var scan = table.newScan().withMetrics(metrics);
      TableRead read = table.newRead().withMetrics(metrics);
      if (query.equals("projected")) {
        read.withProjection("c", "v1");
      } else if (query.equals("filtered")) {
        scan.withFilter(filter);
        read.withFilter(filter);
      }
      long[] count = new long[1];
      for (Split split : scan.plan().splits()) {
        read.forEach(
            split,
            row -> {
              count[0]++;
              for (int i = 0; i < row.size(); i++) {
                Object v = row.get(i);
                checksum += v == null ? 0 : v.hashCode();
              }
            });
      }
      if (query.equals("filtered")) {
        System.err.println("lockstep filtered: " + metrics);
      }
      return count[0];
    }

    @Override
    public void close() throws Exception {
      table.close();
    }
  }

  private static final class PaimonScans implements Scans {
    private final Catalog catalog;
    private final Table table;
    private final org.apache.paimon.predicate.Predicate filter;
    static long checksum;

    PaimonScans(Path dir, long rows, int commits, long lo, long hi) throws Exception {
      Files.createDirectories(dir);
      Options options = new Options();
      options.set("warehouse", dir.toUri().toString());
      catalog = CatalogFactory.createCatalog(CatalogContext.create(options));
      catalog.createDatabase("bench", true);
      org.apache.paimon.schema.Schema.Builder schema =
          org.apache.paimon.schema.Schema.newBuilder()
              .column("c", DataTypes.BIGINT())
              .column("k", DataTypes.INT());
      for (int v = 1; v <= 4; v++) {
        schema.column("v" + v, DataTypes.BIGINT());
      }
      for (int s = 1; s <= 3; s++) {
        schema.column("s" + s, DataTypes.STRING());
      }
      schema.column("d", DataTypes.DOUBLE());
      Identifier id = Identifier.create("bench", "scan");
      catalog.createTable(id, schema.build(), false);
      Table created = catalog.getTable(id);
      long perCommit = rows / commits;
      long i = 0;
      for (int c = 1; c <= commits; c++) {
        BatchWriteBuilder builder = created.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
            BatchTableCommit commit = builder.newCommit()) {
          long end = c == commits ? rows : i + perCommit;
          for (; i < end; i++) {
            write.write(
                org.apache.paimon.data.GenericRow.of(
                    i,
                    (int) (i % 1000),
                    i * 3,
                    i * 5,
                    i * 7,
                    i * 11,
                    BinaryString.fromString(text(i, 1)),
                    BinaryString.fromString(text(i, 2)),
                    BinaryString.fromString(text(i, 3)),
                    i * 0.5));
          }
          commit.commit(write.prepareCommit());
        }
      }
      table = catalog.getTable(id);
      org.apache.paimon.predicate.PredicateBuilder b =
          new org.apache.paimon.predicate.PredicateBuilder(table.rowType());
      filter =
          org.apache.paimon.predicate.PredicateBuilder.and(
              b.greaterOrEqual(0, lo), b.lessThan(0, hi));
    }

    @Override
    public long run(String query) throws Exception {
      ReadBuilder builder = table.newReadBuilder();
      int fields = 10;
      if (query.equals("projected")) {
        builder = builder.withProjection(new int[] {0, 2});
        fields = 2;
      } else if (query.equals("filtered")) {
        builder = builder.withFilter(filter);
      }
      var read = builder.newRead();
      if (query.equals("filtered")) {
        read = read.executeFilter();
      }
      long count = 0;
      try (RecordReader<InternalRow> reader = read.createReader(builder.newScan().plan())) {
        RecordReader.RecordIterator<InternalRow> batch;
        while ((batch = reader.readBatch()) != null) {
          InternalRow row;
          while ((row = batch.next()) != null) {
            count++;
            checksum += fold(row, fields, query.equals("projected"));
          }
          batch.releaseBatch();
        }
      }
      return count;
    }

    /** Reads every returned value, as Lockstep's rows hold them decoded. */
    private static long fold(InternalRow row, int fields, boolean projected) {
      if (projected) {
        return (row.isNullAt(0) ? 0 : row.getLong(0)) + (row.isNullAt(1) ? 0 : row.getLong(1));
      }
      long h = row.getLong(0) + row.getInt(1);
      for (int i = 2; i < 6; i++) {
        h += row.getLong(i);
      }
      for (int i = 6; i < 9; i++) {
        h += row.getString(i).toString().hashCode();
      }
      return h + Double.hashCode(row.getDouble(9));
    }

    @Override
    public void close() throws Exception {
      catalog.close();
    }
  }
}
