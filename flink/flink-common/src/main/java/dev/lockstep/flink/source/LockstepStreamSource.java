package dev.lockstep.flink.source;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.RowDataConverter;
import dev.lockstep.flink.data.TableShape;
import dev.lockstep.flink.sink.JavaSerializer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

/**
 * A streaming read of a table's changes on Flink's Source API ({@code CONTINUOUS_UNBOUNDED}): the
 * engine's stream scan, started as the table's {@code scan.mode} / {@code scan.snapshot-id} /
 * {@code scan.timestamp-millis} / {@code consumer-id} options say (pass them as the loader's
 * options), polled every {@code continuous.discovery-interval}. Every committed change is emitted
 * once, in commit order, with its row kind, across failovers and restarts from a checkpoint or
 * savepoint. All changes are emitted by subtask 0 and the other subtasks stay idle (marked idle for
 * watermarks): with the source at the job's parallelism, operators after it are chained by forward
 * edges, so commit order holds for subtask 0's downstream chain and, past a keyed shuffle, per key.
 */
public final class LockstepStreamSource implements Source<RowData, ChangesSplit, StreamPosition> {

  private static final long serialVersionUID = 1L;

  private final TableLoader loader;
  private final TableShape shape;
  private final int[] projection;
  private final List<Map<String, String>> partitions;
  private final long intervalMillis;

  /**
   * @param projection the table's columns to emit, in order; null = all
   * @param partitions the partitions to read (values as strings); null = all
   */
  public LockstepStreamSource(
      TableLoader loader,
      TableShape shape,
      int[] projection,
      List<Map<String, String>> partitions,
      Duration discoveryInterval) {
    if (discoveryInterval.isNegative() || discoveryInterval.isZero()) {
      throw new IllegalArgumentException(
          "Option 'continuous.discovery-interval' must be positive, e.g. '10 s'; got "
              + discoveryInterval
              + ".");
    }
    this.loader = loader;
    this.shape = shape;
    this.projection = projection;
    this.partitions = partitions == null ? null : List.copyOf(partitions);
    this.intervalMillis = discoveryInterval.toMillis();
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SplitEnumerator<ChangesSplit, StreamPosition> createEnumerator(
      SplitEnumeratorContext<ChangesSplit> context) {
    return new LockstepStreamEnumerator(context, loader, intervalMillis, rowFilter(), null);
  }

  @Override
  public SplitEnumerator<ChangesSplit, StreamPosition> restoreEnumerator(
      SplitEnumeratorContext<ChangesSplit> context, StreamPosition checkpoint) {
    return new LockstepStreamEnumerator(context, loader, intervalMillis, rowFilter(), checkpoint);
  }

  /** The partition filter on full rows (partition pruning pushed into the stream). */
  private Predicate<GenericRow> rowFilter() {
    if (partitions == null) {
      return row -> true;
    }
    List<String> keys = shape.partitionKeys();
    int[] positions = new int[keys.size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = shape.rowType().indexOf(keys.get(i));
    }
    List<Map<String, String>> specs = partitions;
    return row ->
        specs.stream()
            .anyMatch(
                spec -> {
                  for (int i = 0; i < positions.length; i++) {
                    String wanted = spec.get(keys.get(i));
                    Object v = row.get(positions[i]);
                    if (spec.containsKey(keys.get(i))
                        && !Objects.equals(v == null ? null : String.valueOf(v), wanted)) {
                      return false;
                    }
                  }
                  return true;
                });
  }

  @Override
  public SimpleVersionedSerializer<ChangesSplit> getSplitSerializer() {
    return new JavaSerializer<>(ChangesSplit.class);
  }

  @Override
  public SimpleVersionedSerializer<StreamPosition> getEnumeratorCheckpointSerializer() {
    return new JavaSerializer<>(StreamPosition.class);
  }

  @Override
  public SourceReader<RowData, ChangesSplit> createReader(SourceReaderContext context) {
    return new LockstepStreamReader(context, projection, new RowDataConverter(shape, projection));
  }
}
