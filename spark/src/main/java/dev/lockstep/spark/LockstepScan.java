package dev.lockstep.spark;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Batch reads: the scan is planned on the driver against one snapshot (the latest when the scan is
 * built, or {@code snapshot-id}), one Spark input partition per engine split (one bucket of one
 * partition). Pushed down: the columns Spark needs (the engine projects them) and filters on
 * partition columns (the engine skips whole partitions; such filters are exact, so Spark does not
 * evaluate them again). Every other filter stays with Spark and is reported as not pushed.
 */
final class LockstepScan implements Scan, Batch {

  /** Read option: the snapshot to read (time travel). */
  static final String SNAPSHOT_ID = "snapshot-id";

  private final LockstepSparkTable table;
  private final StructType readSchema;
  private final List<Filter> partitionFilters;
  private final Long snapshotId;
  private TableScan.Plan plan;

  private LockstepScan(
      LockstepSparkTable table,
      StructType readSchema,
      List<Filter> partitionFilters,
      Long snapshotId) {
    this.table = table;
    this.readSchema = readSchema;
    this.partitionFilters = partitionFilters;
    this.snapshotId = snapshotId;
  }

  @Override
  public StructType readSchema() {
    return readSchema;
  }

  @Override
  public String description() {
    return "lockstep "
        + table.name()
        + " partition filters "
        + partitionFilters
        + (snapshotId == null ? "" : " snapshot " + snapshotId);
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  /** Plans once: every call returns the splits of the same snapshot. */
  synchronized TableScan.Plan plan() {
    if (plan == null) {
      try (FileStoreTable t = table.catalog().openTable(table.identifier())) {
        TableScan scan =
            t.newScan()
                .withPartitionFilter(
                    PartitionFilters.predicate(partitionFilters, table.tableSchema()));
        if (snapshotId != null) {
          scan.withSnapshot(snapshotId);
        }
        plan = scan.plan();
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot plan a read of " + table.name() + ": " + e.getMessage(), e);
      }
    }
    return plan;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return plan().splits().stream().map(SplitPartition::new).toArray(InputPartition[]::new);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new ReaderFactory(table.catalog().loader(table.identifier()), readSchema.fieldNames());
  }

  /** One engine split. */
  record SplitPartition(Split split) implements InputPartition {
    @Override
    public String[] preferredLocations() {
      return new String[0];
    }
  }

  /** Serializable: opens the table on the executor and reads one split. */
  static final class ReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;
    private final TableLoader loader;
    private final String[] columns;

    ReaderFactory(TableLoader loader, String[] columns) {
      this.loader = loader;
      this.columns = columns;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      return new SplitReader(loader, columns, ((SplitPartition) partition).split());
    }
  }

  /**
   * Streams one split: the engine's merged read runs on its own thread into a small queue, so that
   * memory holds a bounded number of rows, whatever the size of the bucket.
   */
  static final class SplitReader implements PartitionReader<InternalRow> {
    private static final Object END = new Object();
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(4096);
    private volatile DataType[] types;
    private final Thread producer;
    private volatile boolean closed;
    private InternalRow current;
    private boolean done;

    SplitReader(TableLoader loader, String[] columns, Split split) {
      this.producer =
          new Thread(
              () -> produce(loader, columns, split),
              "lockstep-read-" + split.partition() + "-" + split.bucket());
      producer.setDaemon(true);
      producer.start();
    }

    private void produce(TableLoader loader, String[] columns, Split split) {
      Object last = END;
      try (TableLoader.Opened opened = loader.open(Map.of())) {
        RowType rowType = opened.table().schema().rowType();
        types =
            Arrays.stream(columns)
                .map(c -> rowType.field(rowType.indexOf(c)).type())
                .toArray(DataType[]::new);
        opened.table().newRead().withProjection(columns).forEach(split, row -> put(row));
      } catch (Throwable t) {
        last = t;
      }
      try {
        while (!closed && !queue.offer(last, 100, TimeUnit.MILLISECONDS)) {
          // wait for the consumer
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void put(GenericRow row) {
      try {
        while (!queue.offer(row, 100, TimeUnit.MILLISECONDS)) {
          if (closed) {
            throw new ReaderClosed();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ReaderClosed();
      }
    }

    @Override
    public boolean next() throws IOException {
      if (done) {
        return false;
      }
      Object item;
      try {
        item = queue.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("Interrupted while reading a Lockstep split", e);
      }
      if (item == END) {
        done = true;
        return false;
      }
      if (item instanceof Throwable t) {
        done = true;
        if (t instanceof IOException io) {
          throw io;
        }
        if (t instanceof RuntimeException r) {
          throw r;
        }
        throw new IOException(t);
      }
      current = SparkTypes.toSpark((GenericRow) item, types);
      return true;
    }

    @Override
    public InternalRow get() {
      return current;
    }

    @Override
    public void close() {
      closed = true;
      producer.interrupt();
    }
  }

  private static final class ReaderClosed extends RuntimeException {
    ReaderClosed() {
      super("reader closed", null, false, false);
    }
  }

  /** Pushes required columns and partition filters; see the class javadoc. */
  static final class Builder
      implements ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns {
    private final LockstepSparkTable table;
    private final Long snapshotId;
    private StructType required;
    private Filter[] pushed = new Filter[0];

    Builder(LockstepSparkTable table, CaseInsensitiveStringMap options) {
      this.table = table;
      this.required = table.schema();
      String snapshot = options.get(SNAPSHOT_ID);
      this.snapshotId = snapshot == null ? table.snapshotId() : Long.valueOf(snapshot.trim());
    }

    @Override
    public Filter[] pushFilters(Filter[] filters) {
      List<Filter> partition = new ArrayList<>();
      List<Filter> rest = new ArrayList<>();
      for (Filter f : filters) {
        if (PartitionFilters.isPartitionFilter(f, table.tableSchema())) {
          partition.add(f);
        } else {
          rest.add(f);
        }
      }
      pushed = partition.toArray(new Filter[0]);
      return rest.toArray(new Filter[0]);
    }

    @Override
    public Filter[] pushedFilters() {
      return pushed;
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
      List<StructField> kept = new ArrayList<>();
      for (StructField f : table.schema().fields()) {
        if (Arrays.asList(requiredSchema.fieldNames()).contains(f.name())) {
          kept.add(f);
        }
      }
      required = new StructType(kept.toArray(new StructField[0]));
    }

    @Override
    public Scan build() {
      return new LockstepScan(table, required, List.of(pushed), snapshotId);
    }
  }
}
