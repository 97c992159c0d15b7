package dev.lockstep.bench.scan;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.operation.TableCompactor;
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
 *
 * <p>The small-files case (issue 20): {@code --commits 1000 --write-only true --buckets 4 --compact
 * true [--table pk]} loads the table in 1,000 small commits that no writer compacts, runs the
 * queries, then fully compacts the table with each system's own compaction (Lockstep: {@code
 * TableCompactor.compactOnce(true)}, the compaction job's round; Paimon: {@code
 * TableWrite.compact(partition, bucket, true)} for every bucket through a copy of the table with
 * {@code write-only = false}, then one commit) and runs them again. {@code --table pk} makes {@code
 * c} the primary key (deduplicate); {@code --buckets N} fixes the buckets of both systems (Paimon's
 * append table then has {@code bucket-key = c}; without it each keeps its default). Append tables
 * compact on both sides (Lockstep's full append compaction, engine README "Append-table
 * compaction"). Extra TSV lines: {@code load} and {@code compact} with the data files after and the
 * seconds.
 */
public final class ScanBench {

  private ScanBench() {}

  public static void main(String[] args) throws Exception {
    long rows = 2_000_000;
    int commits = 10;
    int repeat = 3;
    Path out = null;
    boolean alternate = false;
    Layout layout = new Layout(false, 0, false);
    boolean compact = false;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--rows" -> rows = Long.parseLong(args[i + 1]);
        case "--commits" -> commits = Integer.parseInt(args[i + 1]);
        case "--repeat" -> repeat = Integer.parseInt(args[i + 1]);
        case "--out" -> out = Path.of(args[i + 1]);
        case "--alternate" -> alternate = Boolean.parseBoolean(args[i + 1]);
        case "--table" -> layout = layout.withPrimaryKey(table(args[i + 1]));
        case "--buckets" -> layout = layout.withBuckets(Integer.parseInt(args[i + 1]));
        case "--write-only" -> layout = layout.withWriteOnly(Boolean.parseBoolean(args[i + 1]));
        case "--compact" -> compact = Boolean.parseBoolean(args[i + 1]);
        default ->
            throw new IllegalArgumentException(
                "Unknown argument '"
                    + args[i]
                    + "'; use --rows N --commits N --repeat N --out FILE [--alternate true]"
                    + " [--table append|pk] [--buckets N] [--write-only true] [--compact true]");
      }
    }
    Path work = Files.createTempDirectory("lockstep-scan-bench");
    List<String> lines = new ArrayList<>();
    lines.add("system\tquery\trows\tmedian_s\tall_s");
    long lo = rows / 2;
    long hi = lo + rows / 100;
    if (alternate) {
      lines.set(0, "system\tquery\trows\tmedian_s\tall_s\tmedian_cpu_s");
      alternating(work, rows, commits, repeat, lo, hi, layout, compact, lines);
      if (out != null) {
        Files.write(out, lines);
      }
      System.err.println("work directory (delete when done): " + work);
      return;
    }
    for (String system : List.of("lockstep", "paimon")) {
      long t0 = System.nanoTime();
      Scans scans =
          system.equals("lockstep")
              ? new LockstepScans(work.resolve("lockstep"), rows, commits, lo, hi, layout)
              : new PaimonScans(work.resolve("paimon"), rows, commits, lo, hi, layout);
      step(system, "load", scans.files(), (System.nanoTime() - t0) / 1e9, lines);
      sequential(system, scans, repeat, "", lines);
      if (compact) {
        long t1 = System.nanoTime();
        if (scans.compact()) {
          step(system, "compact", scans.files(), (System.nanoTime() - t1) / 1e9, lines);
          sequential(system, scans, repeat, " after compaction", lines);
        } else {
          System.out.println(system + "	compact	not available for this table");
        }
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

  /** Per query one warm-up and {@code repeat} measured runs of one system; median seconds. */
  private static void sequential(
      String system, Scans scans, int repeat, String suffix, List<String> lines) throws Exception {
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
              query + suffix,
              count,
              sorted[repeat / 2],
              Arrays.toString(seconds));
      System.out.println(line);
      lines.add(line);
    }
  }

  /** A load or compaction step: the data files after it and its seconds. */
  private static void step(
      String system, String what, long files, double seconds, List<String> lines) {
    String line =
        String.format(Locale.ROOT, "%s\t%s\t%d files\t%.3f\t", system, what, files, seconds);
    System.out.println(line);
    lines.add(line);
  }

  private static boolean table(String kind) {
    return switch (kind) {
      case "append" -> false;
      case "pk" -> true;
      default -> throw new IllegalArgumentException("--table append or pk: " + kind);
    };
  }

  /**
   * The table both systems create: {@code c} as primary key or not, {@code buckets} (0: each
   * system's default), {@code write-only} (no compaction by the writers).
   */
  record Layout(boolean primaryKey, int buckets, boolean writeOnly) {
    Layout withPrimaryKey(boolean pk) {
      return new Layout(pk, buckets, writeOnly);
    }

    Layout withBuckets(int n) {
      return new Layout(primaryKey, n, writeOnly);
    }

    Layout withWriteOnly(boolean w) {
      return new Layout(primaryKey, buckets, w);
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
      Path work,
      long rows,
      int commits,
      int repeat,
      long lo,
      long hi,
      Layout layout,
      boolean compact,
      List<String> lines)
      throws Exception {
    String[] names = {"lockstep", "paimon"};
    Scans[] systems = new Scans[2];
    long t0 = System.nanoTime();
    systems[0] = new LockstepScans(work.resolve("lockstep"), rows, commits, lo, hi, layout);
    step(names[0], "load", systems[0].files(), (System.nanoTime() - t0) / 1e9, lines);
    t0 = System.nanoTime();
    systems[1] = new PaimonScans(work.resolve("paimon"), rows, commits, lo, hi, layout);
    step(names[1], "load", systems[1].files(), (System.nanoTime() - t0) / 1e9, lines);
    inTurns(names, systems, repeat, "", lines);
    if (compact) {
      List<String> compacted = new ArrayList<>();
      List<Scans> compactedScans = new ArrayList<>();
      for (int s = 0; s < 2; s++) {
        long t1 = System.nanoTime();
        if (systems[s].compact()) {
          step(names[s], "compact", systems[s].files(), (System.nanoTime() - t1) / 1e9, lines);
          compacted.add(names[s]);
          compactedScans.add(systems[s]);
        } else {
          System.out.println(names[s] + "\tcompact\tnot available for this table");
        }
      }
      inTurns(
          compacted.toArray(new String[0]),
          compactedScans.toArray(new Scans[0]),
          repeat,
          " after compaction",
          lines);
    }
    for (Scans scans : systems) {
      scans.close();
    }
  }

  /** Per query one warm-up of each system, then {@code repeat} rounds of turns (order flipping). */
  private static void inTurns(
      String[] names, Scans[] systems, int repeat, String suffix, List<String> lines)
      throws Exception {
    int n = systems.length;
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    for (String query : List.of("full", "projected", "filtered")) {
      double[][] wall = new double[n][repeat];
      double[][] cpu = new double[n][repeat];
      long[] count = new long[n];
      for (Scans scans : systems) {
        scans.run(query); // warm-up
      }
      for (int r = 0; r < repeat; r++) {
        for (int turn = 0; turn < n; turn++) {
          int s = r % 2 == 0 ? turn : n - 1 - turn;
          long cpu0 = os.getProcessCpuTime();
          long start = System.nanoTime();
          count[s] = systems[s].run(query);
          wall[s][r] = (System.nanoTime() - start) / 1e9;
          cpu[s][r] = (os.getProcessCpuTime() - cpu0) / 1e9;
        }
      }
      for (int s = 0; s < n; s++) {
        double[] sortedWall = wall[s].clone();
        Arrays.sort(sortedWall);
        double[] sortedCpu = cpu[s].clone();
        Arrays.sort(sortedCpu);
        String line =
            String.format(
                Locale.ROOT,
                "%s\t%s\t%d\t%.3f\t%s\t%.3f",
                names[s],
                query + suffix,
                count[s],
                sortedWall[repeat / 2],
                Arrays.toString(wall[s]),
                sortedCpu[repeat / 2]);
        System.out.println(line);
        lines.add(line);
      }
    }
  }

  private static String text(long i, int column) {
    return String.format(Locale.ROOT, "%016x", (i * 0x9E3779B97F4A7C15L) ^ column);
  }

  /** The three queries of one system. */
  private interface Scans extends AutoCloseable {
    /** Runs a query; returns the number of rows. */
    long run(String query) throws Exception;

    /** The data files a full scan of the latest snapshot plans. */
    long files() throws Exception;

    /** Fully compacts the table and commits; false when this system cannot for this table. */
    boolean compact() throws Exception;
  }

  private static final class LockstepScans implements Scans {
    private final FileStoreTable table;
    private final Predicate filter;
    static long checksum;

    LockstepScans(Path dir, long rows, int commits, long lo, long hi, Layout layout)
        throws Exception {
      Files.createDirectories(dir);
      FileSystemCatalog catalog =
          new FileSystemCatalog(
              new LocalFileIO(), dev.lockstep.fs.Path.of(dir.toString()), java.util.Map.of());
      dev.lockstep.engine.schema.Schema.Builder schema =
          dev.lockstep.engine.schema.Schema.newBuilder()
              .column("c", layout.primaryKey() ? DataType.bigint().notNull() : DataType.bigint())
              .column("k", DataType.intType());
      if (layout.primaryKey()) {
        schema.primaryKey("c");
      }
      if (layout.buckets() != 0) {
        schema.option("bucket", Integer.toString(layout.buckets()));
      }
      if (layout.writeOnly()) {
        schema.option("write-only", "true");
      }
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
    public long files() throws Exception {
      long files = 0;
      for (Split split : table.newScan().plan().splits()) {
        files += split.files().size();
      }
      return files;
    }

    @Override
    public boolean compact() throws Exception {
      try (TableCompactor compactor = new TableCompactor(table, "compact")) {
        compactor.compactOnce(true);
      }
      return true;
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
    private final Identifier id = Identifier.create("bench", "scan");
    private final int buckets;
    private Table table;
    private final org.apache.paimon.predicate.Predicate filter;
    static long checksum;

    PaimonScans(Path dir, long rows, int commits, long lo, long hi, Layout layout)
        throws Exception {
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
      if (layout.primaryKey()) {
        schema.primaryKey("c");
      }
      if (layout.buckets() != 0) {
        schema.option("bucket", Integer.toString(layout.buckets()));
        if (!layout.primaryKey()) {
          schema.option("bucket-key", "c");
        }
      }
      if (layout.writeOnly()) {
        schema.option("write-only", "true");
      }
      buckets = layout.buckets();
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

    @Override
    public long files() {
      long files = 0;
      for (org.apache.paimon.table.source.Split split :
          table.newReadBuilder().newScan().plan().splits()) {
        files += ((org.apache.paimon.table.source.DataSplit) split).dataFiles().size();
      }
      return files;
    }

    @Override
    public boolean compact() throws Exception {
      if (buckets <= 0) {
        return false; // dynamic or unaware buckets: compaction needs Paimon's coordinators
      }
      // The writers are write-only; the compaction is a writer that may compact.
      Table compacting = table.copy(java.util.Map.of("write-only", "false"));
      BatchWriteBuilder builder = compacting.newBatchWriteBuilder();
      try (BatchTableWrite write = builder.newWrite();
          BatchTableCommit commit = builder.newCommit()) {
        for (int bucket = 0; bucket < buckets; bucket++) {
          write.compact(org.apache.paimon.data.BinaryRow.EMPTY_ROW, bucket, true);
        }
        commit.commit(write.prepareCommit());
      }
      table = catalog.getTable(id);
      return true;
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
