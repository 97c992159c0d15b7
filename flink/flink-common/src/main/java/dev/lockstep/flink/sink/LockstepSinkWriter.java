package dev.lockstep.flink.sink;

import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.flink.TableLoader;
import dev.lockstep.flink.data.RowDataConverter;
import dev.lockstep.flink.data.TableShape;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.table.data.RowData;

/**
 * One writer subtask: buffers rows in the engine's {@link TableWrite} (the pre-write step routed
 * every row of a bucket here) and, at each checkpoint, flushes and hands the checkpoint's commit
 * messages to the aggregator. Each row keeps its kind ({@code +I}, {@code -U}, {@code +U}, {@code
 * -D}) into the engine's {@code TableWrite.write(kind, row)}: in a primary-key table {@code -U} and
 * {@code -D} remove the key; an append table refuses them.
 */
final class LockstepSinkWriter
    implements CommittingSinkWriter<RowData, LockstepCommittable>,
        StatefulSinkWriter<RowData, LockstepWriterState> {

  private final String commitUser;
  private final TableLoader.Opened opened;
  private final TableWrite write;
  private final RowDataConverter converter;

  LockstepSinkWriter(TableLoader loader, TableShape shape, String commitUser) throws IOException {
    this.commitUser = commitUser;
    this.opened = loader.open();
    this.write = opened.table().newWrite(commitUser);
    this.converter = new RowDataConverter(shape);
  }

  /** The commit user: the restored one when the job restarts from a checkpoint (see the sink). */
  static String restoredUser(Collection<LockstepWriterState> states, String fallback) {
    for (LockstepWriterState s : states) {
      return s.commitUser();
    }
    return fallback;
  }

  @Override
  public void write(RowData row, Context context) throws IOException {
    // The engine refuses -U and -D in an append table with one line naming the table.
    write.write(kindOf(row.getRowKind()), converter.toEngine(row));
  }

  /** Flink's row kind as the engine's: the same four kinds, names and byte values. */
  static RowKind kindOf(org.apache.flink.types.RowKind kind) {
    switch (kind) {
      case INSERT:
        return RowKind.INSERT;
      case UPDATE_BEFORE:
        return RowKind.UPDATE_BEFORE;
      case UPDATE_AFTER:
        return RowKind.UPDATE_AFTER;
      case DELETE:
        return RowKind.DELETE;
      default:
        throw new IllegalStateException("Unknown Flink row kind " + kind);
    }
  }

  @Override
  public void flush(boolean endOfInput) {
    // prepareCommit flushes: everything buffered goes into the checkpoint's committable.
  }

  @Override
  public Collection<LockstepCommittable> prepareCommit() throws IOException {
    List<CommitMessage> messages = write.prepareCommit();
    return List.of(new LockstepCommittable(commitUser, -1, messages));
  }

  @Override
  public List<LockstepWriterState> snapshotState(long checkpointId) {
    return List.of(new LockstepWriterState(commitUser));
  }

  @Override
  public void close() throws Exception {
    try {
      write.close();
    } finally {
      opened.close();
    }
  }
}
