package dev.lockstep.flink.table;

import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.TableShape;
import dev.lockstep.flink.source.LockstepSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsPartitionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.types.DataType;

/**
 * {@code SELECT} of a Lockstep table: a bounded read of one snapshot (the latest when the job
 * starts, or {@code scan.snapshot-id}), with top-level projection and partition pruning pushed into
 * the scan. Rows of a primary-key table are the merged latest rows, so the read is insert-only.
 */
final class LockstepDynamicTableSource
    implements ScanTableSource, SupportsProjectionPushDown, SupportsPartitionPushDown {

  private final TableLoader loader;
  private final TableShape shape;
  private final Long snapshotId;
  private int[] projection;
  private List<Map<String, String>> partitions;

  LockstepDynamicTableSource(TableLoader loader, TableShape shape, Long snapshotId) {
    this.loader = loader;
    this.shape = shape;
    this.snapshotId = snapshotId;
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return ChangelogMode.insertOnly();
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    return SourceProvider.of(new LockstepSource(loader, shape, projection, partitions, snapshotId));
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
  public Optional<List<Map<String, String>>> listPartitions() {
    if (shape.partitionKeys().isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new ArrayList<>(LockstepSource.partitions(loader, snapshotId)));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot list the partitions of " + loader + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void applyPartitions(List<Map<String, String>> remainingPartitions) {
    this.partitions = List.copyOf(remainingPartitions);
  }

  @Override
  public DynamicTableSource copy() {
    LockstepDynamicTableSource copy = new LockstepDynamicTableSource(loader, shape, snapshotId);
    copy.projection = projection;
    copy.partitions = partitions;
    return copy;
  }

  @Override
  public String asSummaryString() {
    return "Lockstep " + loader.identifier();
  }
}
