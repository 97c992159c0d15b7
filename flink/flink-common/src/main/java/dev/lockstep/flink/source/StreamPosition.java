package dev.lockstep.flink.source;

import java.io.Serializable;
import java.util.List;

/**
 * The streaming enumerator's checkpointed position: the next snapshot its stream scan reads ({@code
 * null}: the scan has not started, so {@code scan.mode} decides on restore) and the splits read but
 * not yet assigned, in snapshot order.
 */
public record StreamPosition(Long nextSnapshot, List<ChangesSplit> pending)
    implements Serializable {
  public StreamPosition {
    pending = List.copyOf(pending);
  }
}
