package dev.lockstep.flink.source;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.scan.TableRead;
import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.RowDataConverter;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.RowData;

/**
 * Reads the splits it is given one after another, asking the enumerator for the next when it runs
 * out. A split's merged rows are read into memory when the split starts (one bucket at a time); the
 * checkpointed state is the current split with the rows emitted so far, and the queued ones.
 */
final class LockstepSourceReader implements SourceReader<RowData, LockstepSplit> {

  private final SourceReaderContext context;
  private final TableLoader loader;
  private final String[] columns;
  private final RowDataConverter converter;
  private final ArrayDeque<LockstepSplit> queue = new ArrayDeque<>();
  private TableLoader.Opened opened;
  private LockstepSplit current;
  private Iterator<GenericRow> rows;
  private long emitted;
  private boolean noMoreSplits;
  private boolean requested;
  private CompletableFuture<Void> available = new CompletableFuture<>();

  LockstepSourceReader(
      SourceReaderContext context,
      TableLoader loader,
      String[] columns,
      RowDataConverter converter) {
    this.context = context;
    this.loader = loader;
    this.columns = columns;
    this.converter = converter;
  }

  @Override
  public void start() {
    if (queue.isEmpty()) {
      context.sendSplitRequest();
      requested = true;
    }
  }

  @Override
  public InputStatus pollNext(ReaderOutput<RowData> output) throws IOException {
    while (true) {
      if (rows != null && rows.hasNext()) {
        output.collect(converter.toFlink(rows.next()));
        emitted++;
        return InputStatus.MORE_AVAILABLE;
      }
      rows = null;
      current = null;
      LockstepSplit next = queue.poll();
      if (next != null) {
        open(next);
        continue;
      }
      if (noMoreSplits) {
        return InputStatus.END_OF_INPUT;
      }
      if (!requested) {
        context.sendSplitRequest();
        requested = true;
      }
      if (available.isDone()) {
        available = new CompletableFuture<>();
      }
      return InputStatus.NOTHING_AVAILABLE;
    }
  }

  private void open(LockstepSplit split) throws IOException {
    if (opened == null) {
      opened = loader.open();
    }
    TableRead read = opened.table().newRead();
    if (columns != null) {
      read.withProjection(columns);
    }
    List<GenericRow> all = read.read(split.split());
    Iterator<GenericRow> it = all.iterator();
    for (long i = 0; i < split.emitted() && it.hasNext(); i++) {
      it.next();
    }
    current = split;
    rows = it;
    emitted = split.emitted();
  }

  @Override
  public List<LockstepSplit> snapshotState(long checkpointId) {
    List<LockstepSplit> state = new ArrayList<>();
    if (current != null) {
      state.add(current.withEmitted(emitted));
    }
    state.addAll(queue);
    return state;
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void addSplits(List<LockstepSplit> splits) {
    queue.addAll(splits);
    requested = false;
    available.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {
    noMoreSplits = true;
    available.complete(null);
  }

  @Override
  public void close() throws Exception {
    if (opened != null) {
      opened.close();
    }
  }
}
