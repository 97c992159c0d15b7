package dev.lockstep.flink.sink;

import dev.lockstep.flink.data.RowDataConverter;
import dev.lockstep.flink.data.TableShape;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;

/**
 * Keys a row by its (partition, bucket), so that the sink's pre-write step sends every row of a
 * bucket to the same writer subtask (one writer per bucket, as the engine requires).
 */
final class BucketKeySelector implements KeySelector<RowData, Integer> {

  private static final long serialVersionUID = 1L;

  private final TableShape shape;
  private final RowDataConverter converter;
  private transient int[] routing;

  BucketKeySelector(TableShape shape) {
    this.shape = shape;
    this.converter = new RowDataConverter(shape);
  }

  @Override
  public Integer getKey(RowData row) {
    if (routing == null) {
      routing = shape.routingColumns();
    }
    return shape.bucketHash(converter.toEngine(row, routing));
  }

  /** Subtask = bucket hash mod parallelism. */
  static final class ModuloPartitioner implements Partitioner<Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public int partition(Integer key, int numPartitions) {
      return Math.floorMod(key, numPartitions);
    }
  }
}
