package dev.lockstep.flink.source;

import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.RowDataConverter;
import dev.lockstep.flink.data.TableShape;
import dev.lockstep.flink.sink.JavaSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

/**
 * A bounded read of one snapshot on Flink's Source API: the enumerator plans the snapshot when the
 * job starts (one split per bucket of each selected partition) and hands splits out on request.
 */
public final class LockstepSource implements Source<RowData, LockstepSplit, PendingSplits> {

  private static final long serialVersionUID = 1L;

  private final TableLoader loader;
  private final TableShape shape;
  private final int[] projection;
  private final List<Map<String, String>> partitions;
  private final Long snapshotId;

  /**
   * @param projection the table's columns to read, in order; null = all
   * @param partitions the partitions to read (values as strings); null = all
   * @param snapshotId null = the latest when the job starts
   */
  public LockstepSource(
      TableLoader loader,
      TableShape shape,
      int[] projection,
      List<Map<String, String>> partitions,
      Long snapshotId) {
    this.loader = loader;
    this.shape = shape;
    this.projection = projection;
    this.partitions = partitions == null ? null : List.copyOf(partitions);
    this.snapshotId = snapshotId;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public SplitEnumerator<LockstepSplit, PendingSplits> createEnumerator(
      SplitEnumeratorContext<LockstepSplit> context) throws IOException {
    List<LockstepSplit> splits = new ArrayList<>();
    try (TableLoader.Opened opened = loader.open()) {
      TableScan scan = opened.table().newScan();
      if (snapshotId != null) {
        scan.withSnapshot(snapshotId);
      }
      if (partitions != null) {
        scan.withPartitionFilter(values -> partitions.stream().anyMatch(p -> matches(values, p)));
      }
      for (Split s : scan.plan().splits()) {
        splits.add(new LockstepSplit(s.partition() + "/bucket-" + s.bucket(), s, 0));
      }
    }
    return new LockstepSplitEnumerator(context, splits);
  }

  private static boolean matches(Map<String, Object> values, Map<String, String> spec) {
    for (Map.Entry<String, String> e : spec.entrySet()) {
      Object v = values.get(e.getKey());
      if (!Objects.equals(v == null ? null : String.valueOf(v), e.getValue())) {
        return false;
      }
    }
    return true;
  }

  /** The partitions of a snapshot (latest when null), values as strings. */
  public static Set<Map<String, String>> partitions(TableLoader loader, Long snapshotId)
      throws IOException {
    Set<Map<String, String>> out = new LinkedHashSet<>();
    try (TableLoader.Opened opened = loader.open()) {
      FileStoreTable table = opened.table();
      TableScan scan = table.newScan();
      if (snapshotId != null) {
        scan.withSnapshot(snapshotId);
      }
      for (Split s : scan.plan().splits()) {
        Map<String, String> spec = new HashMap<>();
        table
            .partitionPath()
            .toMap(s.partition())
            .forEach((k, v) -> spec.put(k, v == null ? null : String.valueOf(v)));
        out.add(spec);
      }
    }
    return out;
  }

  @Override
  public SplitEnumerator<LockstepSplit, PendingSplits> restoreEnumerator(
      SplitEnumeratorContext<LockstepSplit> context, PendingSplits checkpoint) {
    return new LockstepSplitEnumerator(context, checkpoint.splits());
  }

  @Override
  public SimpleVersionedSerializer<LockstepSplit> getSplitSerializer() {
    return new JavaSerializer<>(LockstepSplit.class);
  }

  @Override
  public SimpleVersionedSerializer<PendingSplits> getEnumeratorCheckpointSerializer() {
    return new JavaSerializer<>(PendingSplits.class);
  }

  @Override
  public SourceReader<RowData, LockstepSplit> createReader(SourceReaderContext context) {
    String[] columns = null;
    if (projection != null) {
      columns = new String[projection.length];
      for (int i = 0; i < projection.length; i++) {
        columns[i] = shape.rowType().field(projection[i]).name();
      }
    }
    return new LockstepSourceReader(
        context, loader, columns, new RowDataConverter(shape, projection));
  }
}
