package dev.lockstep.flink.data;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.PartitionPath;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.types.DataField;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What an operator needs of a table's schema without opening the table: the columns, keys and the
 * bucket count, serializable into the job graph. It routes a row to its (partition, bucket) the way
 * the engine's {@code TableWrite} does, so that the sink can send each bucket to one writer.
 */
public final class TableShape implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String[] names;
  private final String[] types;
  private final List<String> partitionKeys;
  private final List<String> primaryKeys;
  private final int buckets;

  /** Per column, the precision of Flink's TIMESTAMP values in RowData (6 when unset). */
  private int[] timestampPrecisions;

  private transient RowType rowType;
  private transient PartitionPath partitionPath;
  private transient int[] partitionIndexes;
  private transient int[] keyIndexes;

  public TableShape(TableSchema schema, int buckets) {
    RowType rt = schema.rowType();
    this.names = rt.names().toArray(new String[0]);
    this.types = new String[rt.size()];
    for (int i = 0; i < rt.size(); i++) {
      types[i] = rt.field(i).type().toString();
    }
    this.partitionKeys = List.copyOf(schema.partitionKeys());
    this.primaryKeys = List.copyOf(schema.primaryKeys());
    this.buckets = buckets;
  }

  public RowType rowType() {
    if (rowType == null) {
      List<DataField> fields = new ArrayList<>();
      for (int i = 0; i < names.length; i++) {
        fields.add(new DataField(i, names[i], DataType.parse(types[i])));
      }
      rowType = new RowType(fields);
      partitionIndexes = rowType.indexesOf(partitionKeys);
      keyIndexes = rowType.indexesOf(primaryKeys);
      partitionPath = new PartitionPath(rowType.project(partitionIndexes));
    }
    return rowType;
  }

  /**
   * The same shape, reading and writing Flink TIMESTAMP(p) columns with the precision of the Flink
   * schema they are declared with (RowData stores p <= 3 differently from p > 3).
   */
  public TableShape withFlinkRowType(org.apache.flink.table.types.logical.RowType flinkType) {
    TableShape copy = new TableShape(names, types, partitionKeys, primaryKeys, buckets);
    copy.timestampPrecisions = new int[names.length];
    for (int i = 0; i < names.length; i++) {
      int index = flinkType.getFieldIndex(names[i]);
      org.apache.flink.table.types.logical.LogicalType t =
          index < 0 ? null : flinkType.getTypeAt(index);
      copy.timestampPrecisions[i] =
          t instanceof org.apache.flink.table.types.logical.TimestampType
              ? ((org.apache.flink.table.types.logical.TimestampType) t).getPrecision()
              : t instanceof org.apache.flink.table.types.logical.LocalZonedTimestampType
                  ? ((org.apache.flink.table.types.logical.LocalZonedTimestampType) t)
                      .getPrecision()
                  : 6;
    }
    return copy;
  }

  private TableShape(
      String[] names,
      String[] types,
      List<String> partitionKeys,
      List<String> primaryKeys,
      int buckets) {
    this.names = names;
    this.types = types;
    this.partitionKeys = partitionKeys;
    this.primaryKeys = primaryKeys;
    this.buckets = buckets;
  }

  /** The precision of column {@code i}'s TIMESTAMP values in Flink RowData. */
  public int timestampPrecision(int i) {
    return timestampPrecision(i, 6);
  }

  /**
   * The precision of column {@code i}'s TIMESTAMP or TIMESTAMP_LTZ values in Flink RowData; {@code
   * fallback} without a Flink schema.
   */
  public int timestampPrecision(int i, int fallback) {
    return timestampPrecisions == null ? fallback : timestampPrecisions[i];
  }

  public List<String> partitionKeys() {
    return partitionKeys;
  }

  public List<String> primaryKeys() {
    return primaryKeys;
  }

  public boolean primaryKeyTable() {
    return !primaryKeys.isEmpty();
  }

  public int buckets() {
    return buckets;
  }

  /**
   * The columns {@link #bucketHash} reads: partition and primary-key columns (every column in an
   * append table), ascending.
   */
  public int[] routingColumns() {
    rowType();
    if (primaryKeys.isEmpty()) {
      return java.util.stream.IntStream.range(0, names.length).toArray();
    }
    return java.util.stream.IntStream.concat(
            java.util.Arrays.stream(partitionIndexes), java.util.Arrays.stream(keyIndexes))
        .distinct()
        .sorted()
        .toArray();
  }

  /** The partition path of a row ({@code ""} in an unpartitioned table). */
  public String partition(GenericRow row) {
    rowType();
    return partitionIndexes.length == 0 ? "" : partitionPath.toPath(row.project(partitionIndexes));
  }

  /** The bucket of a row: hash of the primary key (append tables: of the row) mod buckets. */
  public int bucket(GenericRow row) {
    rowType();
    GenericRow key = primaryKeys.isEmpty() ? row : row.project(keyIndexes);
    return Math.floorMod(RowComparator.stableHash(key), buckets);
  }

  /** A hash of (partition, bucket): rows of one bucket get the same value. */
  public int bucketHash(GenericRow row) {
    return 31 * partition(row).hashCode() + bucket(row);
  }
}
