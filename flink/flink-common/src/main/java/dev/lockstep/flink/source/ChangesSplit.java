package dev.lockstep.flink.source;

import dev.lockstep.engine.data.GenericRow;
import java.io.Serializable;
import java.util.List;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * The changes of one snapshot, as the enumerator read them from the engine's stream scan: row kinds
 * ({@code RowKind.toByteValue}) and full rows in commit order, and how many a reader already
 * emitted (its checkpointed position: a restored reader skips them).
 */
public record ChangesSplit(long snapshotId, byte[] kinds, List<GenericRow> rows, long emitted)
    implements SourceSplit, Serializable {

  public ChangesSplit {
    rows = List.copyOf(rows);
  }

  @Override
  public String splitId() {
    return "snapshot-" + snapshotId;
  }

  ChangesSplit withEmitted(long n) {
    return new ChangesSplit(snapshotId, kinds, rows, n);
  }
}
