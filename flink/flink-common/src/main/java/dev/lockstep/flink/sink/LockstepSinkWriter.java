package dev.lockstep.flink.sink;

import dev.lockstep.engine.data.GenericRow;
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
 * messages to the aggregator. Inserts and update-afters are writes; deletes and update-befores
 * delete their key (primary-key tables only).
 */
final class LockstepSinkWriter implements CommittingSinkWriter<RowData, LockstepCommittable>,
    StatefulSinkWriter<RowData, LockstepWriterState> {

  private final String commitUser;
  private final TableLoader.Opened opened;
  private final TableWrite write;
  private final RowDataConverter converter;
  private final boolean primaryKeyTable;
  private final String tableName;

  LockstepSinkWriter(TableLoader loader, TableShape shape, String commitUser) throws IOException {
    this.commitUser = commitUser;
    this.opened = loader.open();
    this.write = opened.table().newWrite(commitUser);
    this.converter = new RowDataConverter(shape);
    this.primaryKeyTable = shape.primaryKeyTable();
    this.tableName = opened.table().fullName();
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
    GenericRow r = converter.toEngine(row);
    switch (row.getRowKind()) {
      case INSERT:
      case UPDATE_AFTER:
        write.write(r);
        break;
      case UPDATE_BEFORE:
      case DELETE:
        if (!primaryKeyTable) {
          throw new IllegalArgumentException("Table " + tableName + " is an append table and"
              + " cannot take " + row.getRowKind() + " rows; declare a PRIMARY KEY or write an"
              + " insert-only stream.");
        }
        write.delete(r);
        break;
      default:
        throw new IllegalStateException("Unknown row kind " + row.getRowKind());
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
