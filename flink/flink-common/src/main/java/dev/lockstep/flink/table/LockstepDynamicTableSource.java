package dev.lockstep.flink.table;

import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.TableShape;
import dev.lockstep.flink.source.LockstepSource;
import dev.lockstep.flink.source.LockstepStreamSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
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
 * {@code SELECT} of a Lockstep table. In batch mode a bounded read of one snapshot (the latest when
 * the job starts, or {@code scan.snapshot-id}): rows of a primary-key table are the merged latest
 * rows, so the read is insert-only. In streaming mode the table's changes ({@link
 * LockstepStreamSource}): an append table is insert-only, a primary-key table with {@code
 * changelog-producer = none} produces upserts (the planner normalizes them), with {@code input} or
 * {@code lookup} the full changelog. Top-level projection and partition pruning are pushed into
 * both.
 */
final class LockstepDynamicTableSource
    implements ScanTableSource, SupportsProjectionPushDown, SupportsPartitionPushDown {

  private final TableLoader loader;
  private final TableShape shape;
  private final Long snapshotId;
  private final Streaming streaming;
  private int[] projection;
  private List<Map<String, String>> partitions;

  /**
   * A streaming read: the changelog mode it produces and the poll interval; null for a batch read.
   */
  record Streaming(ChangelogMode mode, Duration discoveryInterval) {}

  LockstepDynamicTableSource(
      TableLoader loader, TableShape shape, Long snapshotId, Streaming streaming) {
    this.loader = loader;
    this.shape = shape;
    this.snapshotId = snapshotId;
    this.streaming = streaming;
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return streaming == null ? ChangelogMode.insertOnly() : streaming.mode();
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    if (streaming != null) {
      // Subtask 0 emits every change and the others stay idle: at the job's parallelism the
      // operators after the source are chained to it by forward edges, so commit order holds up to
      // the first keyed shuffle, which keeps each key's order (LockstepStreamSource).
      return SourceProvider.of(
          new LockstepStreamSource(
              loader, shape, projection, partitions, streaming.discoveryInterval()));
    }
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
    LockstepDynamicTableSource copy =
        new LockstepDynamicTableSource(loader, shape, snapshotId, streaming);
    copy.projection = projection;
    copy.partitions = partitions;
    return copy;
  }

  @Override
  public String asSummaryString() {
    return "Lockstep " + loader.identifier();
  }
}
