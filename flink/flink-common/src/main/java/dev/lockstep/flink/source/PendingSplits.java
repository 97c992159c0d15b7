package dev.lockstep.flink.source;

import java.io.Serializable;
import java.util.List;

/** The enumerator's checkpointed position: the splits not yet assigned to a reader. */
public record PendingSplits(List<LockstepSplit> splits) implements Serializable {
  public PendingSplits {
    splits = List.copyOf(splits);
  }
}
