package dev.lockstep.bench.paimon;

import dev.lockstep.bench.BenchSystem;
import dev.lockstep.bench.BenchTable;
import dev.lockstep.bench.BenchWriter;
import dev.lockstep.bench.FailureKind;
import dev.lockstep.bench.TableSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.metrics.Gauge;
import org.apache.paimon.metrics.Metric;
import org.apache.paimon.metrics.MetricGroup;
import org.apache.paimon.metrics.MetricGroupImpl;
import org.apache.paimon.metrics.MetricRegistry;
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
 * Apache Paimon through its public Java API: a filesystem catalog on a local warehouse, stream
 * write builders with one commit user per writer, as a Flink sink uses them. Commit retries are
 * read from Paimon's own {@code lastCommitAttempts} metric.
 */
public final class PaimonSystem implements BenchSystem {

  @Override
  public String name() {
    return "paimon";
  }

  @Override
  public String version() {
    Package p = Catalog.class.getPackage();
    String v = p == null ? null : p.getImplementationVersion();
    return v == null ? "1.3.1" : v;
  }

  @Override
  public FailureKind classify(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (message.startsWith("Commit failed after") && message.contains("retries")) {
        return FailureKind.RETRIES_EXHAUSTED;
      }
      // "File deletion conflicts detected! Give up committing." and "LSM conflicts detected! ..."
      if (message.contains("conflicts detected")) {
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
        CoreOptions.COMMIT_MAX_RETRIES.key(),
        String.valueOf(CoreOptions.COMMIT_MAX_RETRIES.defaultValue()));
    settings.put(
        "commit retry wait (min .. max)",
        CoreOptions.COMMIT_MIN_RETRY_WAIT.defaultValue().toMillis()
            + " ms .. "
            + CoreOptions.COMMIT_MAX_RETRY_WAIT.defaultValue().toMillis()
            + " ms");
    settings.put(
        "bucket flushes at the end of a batch",
        "one bucket after another in the writer thread (file output asynchronous)");
    settings.put(
        "snapshot commit on the local store",
        "temp file + rename under a JVM-wide lock (no lock.type)");
    return settings;
  }

  @Override
  public BenchTable createTable(Path warehouse, TableSpec spec) throws Exception {
    Options options = new Options();
    options.set("warehouse", warehouse.toUri().toString());
    Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options));
    catalog.createDatabase("bench", true);
    Schema.Builder schema =
        Schema.newBuilder()
            .column("k", DataTypes.INT().notNull())
            .column("v", DataTypes.BIGINT())
            .column("s", DataTypes.STRING())
            .option("bucket", Integer.toString(spec.buckets()))
            .option("write-only", Boolean.toString(spec.writeOnly()))
            .option("num-sorted-run.compaction-trigger", Integer.toString(spec.compactionTrigger()))
            .option("manifest.format", "avro")
            .option("manifest.compression", "deflate");
    TableSpec.SHARED_OPTIONS.forEach(schema::option);
    if (spec.primaryKey()) {
      schema.primaryKey("k");
    } else {
      schema.option("bucket-key", "k");
    }
    Identifier id = Identifier.create("bench", "t");
    catalog.createTable(id, schema.build(), false);
    return new PaimonTable(catalog, catalog.getTable(id), spec, warehouse);
  }

  private static final class PaimonTable implements BenchTable {
    private final Catalog catalog;
    private final Table table;
    private final TableSpec spec;
    private final Path warehouse;

    PaimonTable(Catalog catalog, Table table, TableSpec spec, Path warehouse) {
      this.catalog = catalog;
      this.table = table;
      this.spec = spec;
      this.warehouse = warehouse;
    }

    @Override
    public long planFiles() throws Exception {
      Options options = new Options();
      options.set("warehouse", warehouse.toUri().toString());
      options.set("cache-enabled", "false");
      try (Catalog fresh = CatalogFactory.createCatalog(CatalogContext.create(options))) {
        long files = 0;
        for (org.apache.paimon.table.source.Split split :
            fresh
                .getTable(Identifier.create("bench", "t"))
                .newReadBuilder()
                .newScan()
                .plan()
                .splits()) {
          files += ((org.apache.paimon.table.source.DataSplit) split).dataFiles().size();
        }
        return files;
      }
    }

    @Override
    public BenchWriter newWriter(String commitUser) {
      return new PaimonWriter(table, commitUser);
    }

    @Override
    public ScanResult scan(boolean collectKeys) throws Exception {
      Table latest = catalog.getTable(Identifier.create("bench", "t"));
      ReadBuilder builder = latest.newReadBuilder();
      long rows = 0;
      Map<Integer, Long> keyToValue = new HashMap<>();
      try (RecordReader<InternalRow> reader =
          builder.newRead().createReader(builder.newScan().plan())) {
        RecordReader.RecordIterator<InternalRow> batch;
        while ((batch = reader.readBatch()) != null) {
          InternalRow row;
          while ((row = batch.next()) != null) {
            rows++;
            if (collectKeys && spec.primaryKey()) {
              keyToValue.put(row.getInt(0), row.getLong(1));
            }
          }
          batch.releaseBatch();
        }
      }
      return new ScanResult(rows, keyToValue);
    }

    @Override
    public long snapshotCount() throws Exception {
      Table latest = catalog.getTable(Identifier.create("bench", "t"));
      return latest.latestSnapshot().map(s -> s.id()).orElse(0L);
    }

    @Override
    public void close() throws Exception {
      catalog.close();
    }
  }

  private static final class PaimonWriter implements BenchWriter {
    private final StreamTableWrite write;
    private final StreamTableCommit commit;
    private final RecordingRegistry metrics = new RecordingRegistry();

    /** Messages of a failed commit, committed again next time (Paimon skips what is already in). */
    private final List<CommitMessage> pending = new ArrayList<>();

    PaimonWriter(Table table, String commitUser) {
      StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser(commitUser);
      this.write = builder.newWrite();
      this.commit = builder.newCommit();
      this.commit.withMetricRegistry(metrics);
    }

    @Override
    public void write(int key, long value, String text) throws Exception {
      write.write(GenericRow.of(key, value, BinaryString.fromString(text)));
    }

    @Override
    public int commit(long identifier) throws Exception {
      pending.addAll(write.prepareCommit(false, identifier));
      commit.commit(identifier, new ArrayList<>(pending));
      pending.clear();
      Object attempts = metrics.gauge("lastCommitAttempts");
      return attempts instanceof Number ? Math.max(0, ((Number) attempts).intValue() - 1) : -1;
    }

    @Override
    public void close() throws Exception {
      Exception first = null;
      try {
        write.close();
      } catch (Exception e) {
        first = e;
      }
      try {
        commit.close();
      } catch (Exception e) {
        if (first != null) {
          first.addSuppressed(e);
        } else {
          first = e;
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }

  /** Keeps Paimon's metric groups so the harness can read {@code lastCommitAttempts}. */
  private static final class RecordingRegistry implements MetricRegistry {
    private final List<MetricGroup> groups = new ArrayList<>();

    @Override
    public synchronized MetricGroup createMetricGroup(String name, Map<String, String> variables) {
      MetricGroup group = new MetricGroupImpl(name, variables);
      groups.add(group);
      return group;
    }

    synchronized Object gauge(String name) {
      for (MetricGroup group : groups) {
        Metric metric = group.getMetrics().get(name);
        if (metric instanceof Gauge) {
          return ((Gauge<?>) metric).getValue();
        }
      }
      return null;
    }
  }
}
