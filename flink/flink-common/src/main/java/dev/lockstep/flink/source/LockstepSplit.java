package dev.lockstep.flink.source;

import dev.lockstep.engine.scan.Split;
import java.io.Serializable;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One bucket of one partition at one snapshot, and how many of its rows a reader already emitted
 * (its checkpointed position: a restored reader skips them).
 */
public record LockstepSplit(String id, Split split, long emitted)
    implements SourceSplit, Serializable {

  @Override
  public String splitId() {
    return id;
  }

  LockstepSplit withEmitted(long rows) {
    return new LockstepSplit(id, split, rows);
  }
}
