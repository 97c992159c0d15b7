package dev.lockstep.bench.lockstep;

import dev.lockstep.bench.BenchSystem;
import dev.lockstep.bench.BenchTable;
import dev.lockstep.bench.BenchWriter;
import dev.lockstep.bench.FailureKind;
import dev.lockstep.bench.TableSpec;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableRead;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Lockstep's engine on the local store, with the same table layout as the Paimon driver. */
public final class LockstepSystem implements BenchSystem {

  private final String name;
  private final Map<String, String> tableOptions;

  public LockstepSystem() {
    this("lockstep", Map.of());
  }

  /**
   * @param tableOptions set on every table this system creates, over the shared ones
   */
  public LockstepSystem(String name, Map<String, String> tableOptions) {
    this.name = name;
    this.tableOptions = Map.copyOf(tableOptions);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String version() {
    Package p = FileStoreTable.class.getPackage();
    String v = p == null ? null : p.getImplementationVersion();
    return v == null ? "0.1.0-SNAPSHOT" : v;
  }

  @Override
  public FailureKind classify(Exception e) {
    if (e instanceof CommitFailedException) {
      String message = String.valueOf(e.getMessage());
      if (message.startsWith("Gave up") && message.contains("snapshot conflicts")) {
        return FailureKind.RETRIES_EXHAUSTED;
      }
      if (message.contains("cannot be applied")) {
        return FailureKind.FILE_CONFLICT;
      }
    }
    return FailureKind.OTHER;
  }

  @Override
  public Map<String, String> settings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("file.format / manifest.format", TableSpec.FILE_FORMAT + " / avro");
    settings.put(
        "file.compression / manifest.compression", TableSpec.FILE_COMPRESSION + " / deflate");
    settings.put(
        CoreOptions.COMMIT_MAX_RETRIES, String.valueOf(CoreOptions.COMMIT_MAX_RETRIES_DEFAULT));
    long min = CoreOptions.COMMIT_MIN_RETRY_WAIT_DEFAULT.toMillis();
    settings.put(
        "commit retry wait (min .. max)",
        "0 .. "
            + 2 * min
            + " ms jitter after a"
            + " lock-free conflict ("
            + min
            + " ms doubling to "
            + CoreOptions.COMMIT_MAX_RETRY_WAIT_DEFAULT.toMillis()
            + " ms only under a contended lock)");
    settings.put(
        "bucket flushes at the end of a batch",
        CoreOptions.WRITE_FLUSH_THREADS
            + "="
            + Math.min(
                CoreOptions.WRITE_FLUSH_THREADS_MAX_DEFAULT,
                Runtime.getRuntime().availableProcessors())
            + " (default): that many buckets at once");
    settings.put(
        "snapshot commit on the local store",
        "commit.strategy=auto: atomic create (temp file + link(2)), no lock");
    return settings;
  }

  @Override
  public BenchTable createTable(Path warehouse, TableSpec spec) throws Exception {
    // The local store, counting what the engine reads, writes and lists (ScaleBench's history);
    // with -Dlockstep.bench.count-store=true also each call by operation and kind of file
    // (ScaleBench's contention part).
    CountingFileIO counting = new CountingFileIO();
    FileIO io =
        Boolean.getBoolean("lockstep.bench.count-store")
            ? new CallCountingFileIO(counting)
            : counting;
    FileSystemCatalog catalog =
        new FileSystemCatalog(
            io, dev.lockstep.fs.Path.of(warehouse.toAbsolutePath().toString()), Map.of());
    Schema.Builder schema =
        Schema.newBuilder()
            .column("k", DataType.intType().notNull())
            .column("v", DataType.bigint())
            .column("s", DataType.string())
            .option(CoreOptions.BUCKET, Integer.toString(spec.buckets()))
            .option(CoreOptions.WRITE_ONLY, Boolean.toString(spec.writeOnly()))
            .option(CoreOptions.COMPACTION_TRIGGER, Integer.toString(spec.compactionTrigger()));
    TableSpec.SHARED_OPTIONS.forEach(schema::option);
    tableOptions.forEach(schema::option);
    if (spec.primaryKey()) {
      schema.primaryKey("k");
    }
    FileStoreTable table = catalog.createTable(new Identifier("bench", "t"), schema.build());
    return new LockstepTable(table, spec, warehouse, counting, io);
  }

  private static final class LockstepTable implements BenchTable {
    private final FileStoreTable table;
    private final TableSpec spec;
    private final Path warehouse;
    private final CountingFileIO counting;
    private final FileIO io;

    LockstepTable(
        FileStoreTable table, TableSpec spec, Path warehouse, CountingFileIO counting, FileIO io) {
      this.counting = counting;
      this.table = table;
      this.spec = spec;
      this.warehouse = warehouse;
      this.io = io;
    }

    @Override
    public long[] storeCounters() {
      return counting.snapshot();
    }

    @Override
    public Map<String, Long> storeCalls() {
      return io instanceof CallCountingFileIO calls ? calls.counts() : Map.of();
    }

    @Override
    public long planFiles() throws Exception {
      FileSystemCatalog catalog =
          new FileSystemCatalog(
              new LocalFileIO(),
              dev.lockstep.fs.Path.of(warehouse.toAbsolutePath().toString()),
              Map.of());
      try (FileStoreTable fresh = catalog.getTable(new Identifier("bench", "t"))) {
        long files = 0;
        for (Split split : fresh.newScan().plan().splits()) {
          files += split.files().size();
        }
        return files;
      }
    }

    @Override
    public BenchWriter newWriter(String commitUser) {
      return new LockstepWriter(table.newWrite(commitUser), table.newCommit(commitUser));
    }

    @Override
    public ScanResult scan(boolean collectKeys) throws Exception {
      TableScan.Plan plan = table.newScan().plan();
      TableRead read = table.newRead();
      long[] rows = {0};
      Map<Integer, Long> keyToValue = new HashMap<>();
      boolean keys = collectKeys && spec.primaryKey();
      for (Split split : plan.splits()) {
        // Streamed row by row, as Paimon's record iterator is read: no split is held in memory.
        read.forEach(
            split,
            row -> {
              rows[0]++;
              if (keys) {
                keyToValue.put((Integer) row.get(0), (Long) row.get(1));
              }
            });
      }
      return new ScanResult(rows[0], keyToValue);
    }

    @Override
    public long snapshotCount() throws Exception {
      return table.snapshotManager().latestId().orElse(0L);
    }

    @Override
    public void close() throws Exception {
      table.close();
    }
  }

  private static final class LockstepWriter implements BenchWriter {
    private final TableWrite write;
    private final TableCommit commit;

    /** Messages of a failed commit: their files are intact and are committed again next time. */
    private final List<CommitMessage> pending = new ArrayList<>();

    LockstepWriter(TableWrite write, TableCommit commit) {
      this.write = write;
      this.commit = commit;
    }

    @Override
    public void write(int key, long value, String text) throws Exception {
      write.write(GenericRow.of(key, value, text));
    }

    @Override
    public int commit(long identifier) throws Exception {
      pending.addAll(write.prepareCommit());
      CommitResult result = commit.commit(identifier, List.copyOf(pending));
      pending.clear();
      return result.retries();
    }

    @Override
    public void close() {
      write.close();
    }
  }
}
