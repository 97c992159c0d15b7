package dev.lockstep.flink.source;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Hands the planned splits (one per bucket) to readers as they ask for work, so a reader that
 * finishes early takes more; splits of a failed reader come back and go out again. Its state is the
 * splits not yet handed out.
 */
final class LockstepSplitEnumerator implements SplitEnumerator<LockstepSplit, PendingSplits> {

  private final SplitEnumeratorContext<LockstepSplit> context;
  private final ArrayDeque<LockstepSplit> pending;

  LockstepSplitEnumerator(
      SplitEnumeratorContext<LockstepSplit> context, Collection<LockstepSplit> splits) {
    this.context = context;
    this.pending = new ArrayDeque<>(splits);
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    LockstepSplit next = pending.poll();
    if (next != null) {
      context.assignSplit(next, subtaskId);
    } else {
      context.signalNoMoreSplits(subtaskId);
    }
  }

  @Override
  public void addSplitsBack(List<LockstepSplit> splits, int subtaskId) {
    splits.forEach(pending::addFirst);
  }

  @Override
  public void addReader(int subtaskId) {}

  @Override
  public PendingSplits snapshotState(long checkpointId) {
    return new PendingSplits(new ArrayList<>(pending));
  }

  @Override
  public void close() {}
}
