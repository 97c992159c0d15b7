package dev.lockstep.bench.dynbucket;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.index.HashIndex;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

/**
 * Issue 19's dynamic-bucket workload, for Lockstep and for Apache Paimon 1.3.1 alike: writer
 * processes with different commit users upsert overlapping random keys into one partition of a
 * dynamic-bucket primary-key table ({@code bucket = -1}) on a local warehouse, compacting as they
 * go; then the table is read and the rows per key counted. Paimon writers route keys as its Flink
 * sink does ({@code HashBucketAssigner}, one assigner per job), each with its own index; Lockstep
 * writers use the engine's committed index. Also the dynamic-bucket ingest and index-memory
 * measurements. Run by {@code benchmarks/run-dynamic-bucket}; reported, never asserted.
 *
 * <pre>
 * create --system lockstep|paimon --warehouse DIR --target N [--bucket B]
 * write  --system lockstep|paimon --warehouse DIR --user U --seconds S --keys K --rows R --seed X
 * count  --system lockstep|paimon --warehouse DIR
 * ingest --warehouse DIR --bucket -1|4 --rows N --keys K --batch R --target N   (Lockstep)
 * </pre>
 */
public final class DynamicBucketDuplicates {

  private DynamicBucketDuplicates() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 1; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String mode = args[0];
    Path warehouse = Path.of(a.get("warehouse"));
    boolean paimon = "paimon".equals(a.get("system"));
    switch (mode) {
      case "create" -> {
        long target = Long.parseLong(a.get("target"));
        int bucket = Integer.parseInt(a.getOrDefault("bucket", "-1"));
        if (paimon) {
          createPaimon(warehouse, target);
        } else {
          createLockstep(warehouse, target, bucket).close();
        }
      }
      case "write" -> {
        String user = a.get("user");
        long millis = (long) (Double.parseDouble(a.get("seconds")) * 1000);
        int keys = Integer.parseInt(a.get("keys"));
        int rows = Integer.parseInt(a.get("rows"));
        long seed = Long.parseLong(a.get("seed"));
        if (paimon) {
          writePaimon(warehouse, user, millis, keys, rows, seed);
        } else {
          writeLockstep(warehouse, user, millis, keys, rows, seed);
        }
      }
      case "count" -> {
        Map<Integer, Integer> perKey = paimon ? countPaimon(warehouse) : countLockstep(warehouse);
        long rows = perKey.values().stream().mapToLong(Integer::longValue).sum();
        long duplicateKeys = perKey.values().stream().filter(c -> c > 1).count();
        int most = perKey.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        System.out.printf(
            "count system=%s rows=%d keys=%d duplicateKeys=%d extraRows=%d maxRowsPerKey=%d%n",
            paimon ? "paimon-1.3.1" : "lockstep",
            rows,
            perKey.size(),
            duplicateKeys,
            rows - perKey.size(),
            most);
      }
      case "ingest" -> ingest(a, warehouse);
      default -> throw new IllegalArgumentException("unknown mode " + mode);
    }
  }

  // ---------------------------------------------------------------- Lockstep

  private static FileStoreTable0 createLockstep(Path warehouse, long target, int bucket)
      throws Exception {
    FileSystemCatalog catalog = catalog(warehouse);
    FileStoreTable0 table =
        new FileStoreTable0(
            catalog.createTable(
                new Identifier("bench", "t"),
                dev.lockstep.engine.schema.Schema.newBuilder()
                    .column("k", DataType.intType().notNull())
                    .column("v", DataType.bigint())
                    .column("s", DataType.string())
                    .primaryKey("k")
                    .options(
                        Map.of(
                            "bucket",
                            Integer.toString(bucket),
                            "dynamic-bucket.target-row-num",
                            Long.toString(target),
                            "commit.max-retries",
                            "50"))
                    .build()));
    return table;
  }

  /** A holder, so that the two {@code FileStoreTable} classes do not clash by name here. */
  private record FileStoreTable0(dev.lockstep.engine.table.FileStoreTable table) {
    void close() throws Exception {
      table.close();
    }
  }

  private static FileSystemCatalog catalog(Path warehouse) {
    return new FileSystemCatalog(
        new LocalFileIO(), dev.lockstep.fs.Path.of(warehouse.toString()), Map.of());
  }

  private static dev.lockstep.engine.table.FileStoreTable lockstepTable(Path warehouse)
      throws Exception {
    return catalog(warehouse).getTable(new Identifier("bench", "t"));
  }

  private static void writeLockstep(
      Path warehouse, String user, long millis, int keys, int rows, long seed) throws Exception {
    Random random = new Random(seed);
    long commits = 0;
    long written = 0;
    long end = System.currentTimeMillis() + millis;
    try (dev.lockstep.engine.table.FileStoreTable table = lockstepTable(warehouse)) {
      TableCommit commit = table.newCommit(user);
      try (TableWrite write = table.newWrite(user)) {
        for (long id = 1; System.currentTimeMillis() < end; id++) {
          for (int r = 0; r < rows; r++) {
            write.write(
                dev.lockstep.engine.data.GenericRow.of(random.nextInt(keys), id * rows + r, user));
          }
          CommitResult result = commit.commit(id, write.prepareCommit());
          commits++;
          written += rows;
          if (result.dataSnapshotId() < 0) {
            throw new IllegalStateException("commit " + id + " wrote nothing");
          }
        }
      }
      System.out.printf(
          "writer system=lockstep user=%s commits=%d rows=%d failedCommits=0 reroutes=%d%n",
          user, commits, written, commit.indexConflicts());
    }
  }

  private static Map<Integer, Integer> countLockstep(Path warehouse) throws Exception {
    Map<Integer, Integer> perKey = new HashMap<>();
    try (dev.lockstep.engine.table.FileStoreTable table = lockstepTable(warehouse)) {
      for (dev.lockstep.engine.data.GenericRow row :
          table.newRead().readAll(table.newScan().plan())) {
        perKey.merge((Integer) row.get(0), 1, Integer::sum);
      }
    }
    return perKey;
  }

  private static void ingest(Map<String, String> a, Path warehouse) throws Exception {
    int bucket = Integer.parseInt(a.get("bucket"));
    long rows = Long.parseLong(a.get("rows"));
    int keys = Integer.parseInt(a.get("keys"));
    int batch = Integer.parseInt(a.get("batch"));
    long target = Long.parseLong(a.get("target"));
    createLockstep(warehouse, target, bucket).close();
    Random random = new Random(42);
    long start = System.nanoTime();
    try (dev.lockstep.engine.table.FileStoreTable table = lockstepTable(warehouse)) {
      TableCommit commit = table.newCommit("ingest");
      try (TableWrite write = table.newWrite("ingest")) {
        long id = 0;
        for (long r = 0; r < rows; ) {
          for (int i = 0; i < batch && r < rows; i++, r++) {
            write.write(dev.lockstep.engine.data.GenericRow.of(random.nextInt(keys), r, "x"));
          }
          commit.commit(++id, write.prepareCommit());
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      Snapshot latest = table.snapshotManager().latest().orElseThrow();
      int buckets =
          table.newScan().plan().splits().stream().mapToInt(s -> s.bucket()).max().orElse(-1) + 1;
      System.out.printf(
          "ingest bucket=%d rows=%d keys=%d seconds=%.2f rowsPerSecond=%.0f buckets=%d%n",
          bucket, rows, keys, seconds, rows / seconds, buckets);
      if (bucket == -1) {
        memory(table, latest);
      }
    }
  }

  /** Loads the committed index into a {@code HashIndex} and measures what it costs per key. */
  private static void memory(dev.lockstep.engine.table.FileStoreTable table, Snapshot latest)
      throws Exception {
    List<int[]> files = new ArrayList<>();
    List<Integer> buckets = new ArrayList<>();
    for (IndexFileMeta f : table.indexManifest().read(latest.indexManifest())) {
      files.add(table.indexManifest().readHashes(f.fileName()));
      buckets.add(f.bucket());
    }
    long before = usedAfterGc();
    HashIndex index = new HashIndex();
    for (int i = 0; i < files.size(); i++) {
      for (int h : files.get(i)) {
        index.putIfAbsent(h, buckets.get(i));
      }
    }
    long beforeMerge = index.bytes();
    index.merge();
    long after = usedAfterGc();
    System.out.printf(
        "memory keys=%d arrayBytesPerKey=%.2f heapBytesPerKey=%.2f"
            + " arrayBytesPerKeyBeforeLastMerge=%.2f%n",
        index.size(),
        (double) index.bytes() / index.size(),
        (double) (after - before) / index.size(),
        (double) beforeMerge / index.size());
    if (index.get(0) == Integer.MIN_VALUE || files.isEmpty()) {
      // Keeps the index and the files read (in the heap before and after) reachable until here.
      System.out.println();
    }
  }

  private static long usedAfterGc() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  // ---------------------------------------------------------------- Paimon

  private static Catalog paimonCatalog(Path warehouse) throws Exception {
    Options options = new Options();
    options.set("warehouse", warehouse.toUri().toString());
    return CatalogFactory.createCatalog(CatalogContext.create(options));
  }

  private static final org.apache.paimon.catalog.Identifier PAIMON_ID =
      org.apache.paimon.catalog.Identifier.create("bench", "t");

  private static void createPaimon(Path warehouse, long target) throws Exception {
    try (Catalog catalog = paimonCatalog(warehouse)) {
      catalog.createDatabase("bench", true);
      catalog.createTable(
          PAIMON_ID,
          Schema.newBuilder()
              .column("k", DataTypes.INT().notNull())
              .column("v", DataTypes.BIGINT())
              .column("s", DataTypes.STRING())
              .primaryKey("k")
              .option("bucket", "-1")
              .option("dynamic-bucket.target-row-num", Long.toString(target))
              .option("commit.max-retries", "50")
              .build(),
          false);
    }
  }

  /** One Paimon "job": a write, a commit and the job's bucket assigner (as its Flink sink). */
  private static final class PaimonJob implements AutoCloseable {
    final StreamTableWrite write;
    final StreamTableCommit commit;
    final HashBucketAssigner assigner;
    final RowKeyExtractor extractor;

    PaimonJob(org.apache.paimon.table.FileStoreTable table, String user, long target) {
      StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser(user);
      write = builder.newWrite();
      commit = builder.newCommit();
      assigner =
          new HashBucketAssigner(
              table.snapshotManager(),
              user,
              table.store().newIndexFileHandler(),
              1,
              1,
              0,
              target,
              -1);
      extractor = table.createRowKeyExtractor();
    }

    @Override
    public void close() throws Exception {
      write.close();
      commit.close();
    }
  }

  private static void writePaimon(
      Path warehouse, String user, long millis, int keys, int rows, long seed) throws Exception {
    Random random = new Random(seed);
    long commits = 0;
    long failed = 0;
    long written = 0;
    long end = System.currentTimeMillis() + millis;
    try (Catalog catalog = paimonCatalog(warehouse)) {
      org.apache.paimon.table.FileStoreTable table =
          (org.apache.paimon.table.FileStoreTable) catalog.getTable(PAIMON_ID);
      long target = table.coreOptions().dynamicBucketTargetRowNum();
      PaimonJob job = new PaimonJob(table, user, target);
      long id = 1;
      while (System.currentTimeMillis() < end) {
        try {
          for (int r = 0; r < rows; r++) {
            GenericRow row =
                GenericRow.of(random.nextInt(keys), id * rows + r, BinaryString.fromString(user));
            job.extractor.setRecord(row);
            int bucket =
                job.assigner.assign(
                    job.extractor.partition(), job.extractor.trimmedPrimaryKey().hashCode());
            job.write.write(row, bucket);
          }
          List<CommitMessage> messages = job.write.prepareCommit(false, id);
          job.commit.commit(id, messages);
          job.assigner.prepareCommit(id);
          commits++;
          written += rows;
          id++;
        } catch (Exception e) {
          // As a Flink job would: fail, restart from the latest snapshot (a new write, commit and
          // assigner), and go on. The failed batch is lost, not duplicated.
          failed++;
          System.err.println("paimon writer " + user + " restarts after: " + e);
          try {
            job.close();
          } catch (Exception ignored) {
            // restarting anyway
          }
          table = (org.apache.paimon.table.FileStoreTable) catalog.getTable(PAIMON_ID);
          job = new PaimonJob(table, user, target);
          id++;
        }
      }
      job.close();
    }
    System.out.printf(
        "writer system=paimon-1.3.1 user=%s commits=%d rows=%d failedCommits=%d reroutes=n/a%n",
        user, commits, written, failed);
  }

  private static Map<Integer, Integer> countPaimon(Path warehouse) throws Exception {
    Map<Integer, Integer> perKey = new HashMap<>();
    try (Catalog catalog = paimonCatalog(warehouse)) {
      ReadBuilder builder = catalog.getTable(PAIMON_ID).newReadBuilder();
      try (RecordReader<InternalRow> reader =
          builder.newRead().createReader(builder.newScan().plan())) {
        RecordReader.RecordIterator<InternalRow> batch;
        while ((batch = reader.readBatch()) != null) {
          InternalRow row;
          while ((row = batch.next()) != null) {
            perKey.merge(row.getInt(0), 1, Integer::sum);
          }
          batch.releaseBatch();
        }
      }
    }
    return perKey;
  }
}
