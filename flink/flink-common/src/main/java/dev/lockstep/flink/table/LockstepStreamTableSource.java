package dev.lockstep.flink.table;

import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.TableShape;
import dev.lockstep.flink.source.LockstepStreamSource;
import java.time.Duration;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.types.DataType;

/**
 * {@code SELECT} of a Lockstep table in streaming mode: the table's changes ({@link
 * LockstepStreamSource}). An append table is insert-only; a primary-key table with {@code
 * changelog-producer = none} produces upserts (the planner normalizes them), with {@code input} or
 * {@code lookup} the full changelog. Top-level projection is pushed into the source; partition
 * filters are not (a stream's partitions are not known when the job is planned: a filter on a
 * partition created later must still match), Flink evaluates them.
 */
final class LockstepStreamTableSource implements ScanTableSource, SupportsProjectionPushDown {

  private final TableLoader loader;
  private final TableShape shape;
  private final ChangelogMode mode;
  private final Duration discoveryInterval;
  private int[] projection;

  LockstepStreamTableSource(
      TableLoader loader, TableShape shape, ChangelogMode mode, Duration discoveryInterval) {
    this.loader = loader;
    this.shape = shape;
    this.mode = mode;
    this.discoveryInterval = discoveryInterval;
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return mode;
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    // Subtask 0 emits every change and the others stay idle: at the job's parallelism the
    // operators after the source are chained to it by forward edges, so commit order holds up to
    // the first keyed shuffle, which keeps each key's order (LockstepStreamSource).
    return SourceProvider.of(
        new LockstepStreamSource(loader, shape, projection, null, discoveryInterval));
  }

  @Override
  public boolean supportsNestedProjection() {
    return false;
  }

  @Override
  public void applyProjection(int[][] projectedFields, DataType producedDataType) {
    int[] top = new int[projectedFields.length];
    for (int i = 0; i < top.length; i++) {
      top[i] = projectedFields[i][0];
    }
    this.projection = top;
  }

  @Override
  public DynamicTableSource copy() {
    LockstepStreamTableSource copy =
        new LockstepStreamTableSource(loader, shape, mode, discoveryInterval);
    copy.projection = projection;
    return copy;
  }

  @Override
  public String asSummaryString() {
    return "Lockstep stream " + loader.identifier();
  }
}
