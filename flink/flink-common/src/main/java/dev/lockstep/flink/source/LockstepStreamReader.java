package dev.lockstep.flink.source;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.flink.data.RowDataConverter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;

/**
 * Emits the changes of the snapshot splits it is given, in the order they were assigned, each row
 * with its kind. Its checkpointed state is the current split with the rows emitted so far and the
 * queued ones; at each checkpoint it tells the enumerator the first snapshot it has not finished
 * ({@link ReaderProgress}), for the consumer position.
 */
final class LockstepStreamReader implements SourceReader<RowData, ChangesSplit> {

  private final SourceReaderContext context;
  private final int[] projection;
  private final RowDataConverter converter;
  private final ArrayDeque<ChangesSplit> queue = new ArrayDeque<>();
  private ChangesSplit current;
  private int emitted;
  private CompletableFuture<Void> available = new CompletableFuture<>();
  private boolean markedIdle;

  LockstepStreamReader(SourceReaderContext context, int[] projection, RowDataConverter converter) {
    this.context = context;
    this.projection = projection;
    this.converter = converter;
  }

  @Override
  public void start() {}

  @Override
  public InputStatus pollNext(ReaderOutput<RowData> output) {
    while (true) {
      if (current != null && emitted < current.rows().size()) {
        GenericRow row = current.rows().get(emitted);
        GenericRowData out = converter.toFlink(projection == null ? row : row.project(projection));
        out.setRowKind(
            org.apache.flink.types.RowKind.valueOf(
                RowKind.fromByteValue(current.kinds()[emitted]).name()));
        output.collect(out);
        emitted++;
        return InputStatus.MORE_AVAILABLE;
      }
      current = queue.poll();
      if (current == null) {
        if (!markedIdle && context.getIndexOfSubtask() != 0) {
          // Only subtask 0 gets splits: the others must not hold back watermarks.
          output.markIdle();
          markedIdle = true;
        }
        if (available.isDone()) {
          available = new CompletableFuture<>();
        }
        return InputStatus.NOTHING_AVAILABLE;
      }
      emitted = (int) current.emitted();
    }
  }

  @Override
  public List<ChangesSplit> snapshotState(long checkpointId) {
    List<ChangesSplit> state = new ArrayList<>();
    if (current != null && emitted < current.rows().size()) {
      state.add(current.withEmitted(emitted));
    }
    state.addAll(queue);
    long first = state.isEmpty() ? Long.MAX_VALUE : state.get(0).snapshotId();
    context.sendSourceEventToCoordinator(new ReaderProgress(checkpointId, first));
    return state;
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void addSplits(List<ChangesSplit> splits) {
    queue.addAll(splits);
    available.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {}

  @Override
  public void close() {}
}
