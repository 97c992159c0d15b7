package dev.lockstep.flink.source;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.StreamTableScan.Change;
import dev.lockstep.engine.scan.StreamTableScan.Changes;
import dev.lockstep.engine.snapshot.ConsumerManager;
import dev.lockstep.flink.TableLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming enumerator: every {@code continuous.discovery-interval} it asks the engine's stream
 * scan for the snapshots committed since the last poll (on the coordinator's worker thread) and
 * turns each snapshot's changes into one split. All splits go to reader 0, in snapshot order, so
 * one reader emits every change in commit order (the source's useful parallelism is 1; other
 * readers stay idle). Its checkpoint is the next snapshot to read and the splits not yet assigned;
 * the readers' checkpoints hold the assigned splits, so a restored job resumes exactly after what
 * it emitted. With {@code consumer-id}, the position of a completed checkpoint (the first snapshot
 * not fully emitted by then) is recorded in the table, so expiration keeps what the job has not
 * read.
 */
final class LockstepStreamEnumerator implements SplitEnumerator<ChangesSplit, StreamPosition> {

  private static final Logger LOG = LoggerFactory.getLogger(LockstepStreamEnumerator.class);

  /** At most this many snapshots are read per poll; the rest comes with the next poll. */
  private static final int SNAPSHOTS_PER_POLL = 100;

  private final SplitEnumeratorContext<ChangesSplit> context;
  private final TableLoader loader;
  private final long intervalMillis;
  private final Predicate<GenericRow> rowFilter;
  private final Long restoredNext;

  /** Not yet assigned, by snapshot id. */
  private final TreeMap<Long, ChangesSplit> pending = new TreeMap<>();

  /** The next snapshot the handled polls have not covered; null before the first poll. */
  private Long nextSnapshot;

  /** Per checkpoint: the first snapshot not assigned at that checkpoint. */
  private final TreeMap<Long, Long> enumeratorProgress = new TreeMap<>();

  /** Per checkpoint: reader 0's first unfinished snapshot. */
  private final TreeMap<Long, Long> readerProgress = new TreeMap<>();

  /** Opened in {@link #start()}, then used on the worker thread. */
  private volatile TableLoader.Opened opened;

  private StreamTableScan scan;

  private volatile String consumerId;

  LockstepStreamEnumerator(
      SplitEnumeratorContext<ChangesSplit> context,
      TableLoader loader,
      long intervalMillis,
      Predicate<GenericRow> rowFilter,
      StreamPosition restored) {
    this.context = context;
    this.loader = loader;
    this.intervalMillis = intervalMillis;
    this.rowFilter = rowFilter;
    this.restoredNext = restored == null ? null : restored.nextSnapshot();
    this.nextSnapshot = restoredNext;
    if (restored != null) {
      restored.pending().forEach(s -> pending.put(s.snapshotId(), s));
    }
  }

  @Override
  public void start() {
    // The start is decided here, before the first checkpoint can be taken: a checkpoint taken
    // before the first poll then holds it, and a job restored from it resumes there instead of
    // deciding again from scan.mode (with 'latest', the commits in between would be skipped). A
    // stream that starts with a full read keeps no position until that read is emitted: restored
    // before it, it decides again, and its full read then covers the commits in between.
    try {
      openScan();
      if (nextSnapshot == null && !scan.fullReadPending()) {
        nextSnapshot = scan.position();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
    context.callAsync(this::poll, this::handle, 0, intervalMillis);
  }

  /** Opens the table and its stream scan, restored to the checkpoint's position if any. */
  private void openScan() throws IOException {
    if (scan == null) {
      opened = loader.open();
      consumerId = opened.table().changelogOptions().consumerId();
      scan = opened.table().newStreamScan();
      if (restoredNext != null) {
        scan.restore(restoredNext);
      }
    }
  }

  private record Batch(List<ChangesSplit> splits, long next) {}

  /** On the worker thread: the changes committed since the last poll. */
  private Batch poll() throws IOException {
    openScan();
    List<ChangesSplit> splits = new ArrayList<>();
    for (int i = 0; i < SNAPSHOTS_PER_POLL; i++) {
      Optional<Changes> changes = scan.next();
      if (changes.isEmpty()) {
        break;
      }
      List<GenericRow> rows = new ArrayList<>();
      byte[] kinds = new byte[changes.get().rows().size()];
      for (Change c : changes.get().rows()) {
        if (rowFilter.test(c.row())) {
          kinds[rows.size()] = c.kind().toByteValue();
          rows.add(c.row());
        }
      }
      splits.add(
          new ChangesSplit(
              changes.get().snapshotId(), java.util.Arrays.copyOf(kinds, rows.size()), rows, 0));
    }
    return new Batch(splits, scan.position());
  }

  /** On the coordinator thread. */
  private void handle(Batch batch, Throwable error) {
    if (error != null) {
      // The engine's one line (an expired position, a missing table) fails the job.
      throw new IllegalStateException(error.getMessage(), error);
    }
    for (ChangesSplit s : batch.splits()) {
      pending.put(s.snapshotId(), s);
    }
    nextSnapshot = batch.next();
    assignPending();
  }

  private void assignPending() {
    if (pending.isEmpty() || !context.registeredReaders().containsKey(0)) {
      return;
    }
    List<ChangesSplit> splits = new ArrayList<>(pending.values());
    pending.clear();
    context.assignSplits(new SplitsAssignment<>(Map.of(0, splits)));
  }

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {}

  @Override
  public void addSplitsBack(List<ChangesSplit> splits, int subtaskId) {
    // Assigned after the reader's last checkpoint: they go out again, still in snapshot order.
    splits.forEach(s -> pending.put(s.snapshotId(), s));
  }

  @Override
  public void addReader(int subtaskId) {
    if (subtaskId == 0) {
      assignPending();
    }
  }

  @Override
  public void handleSourceEvent(int subtaskId, SourceEvent event) {
    if (subtaskId == 0 && event instanceof ReaderProgress p) {
      readerProgress.put(p.checkpointId(), p.firstUnfinishedSnapshot());
    }
  }

  @Override
  public StreamPosition snapshotState(long checkpointId) {
    if (nextSnapshot != null) {
      enumeratorProgress.put(
          checkpointId, pending.isEmpty() ? nextSnapshot : pending.firstKey().longValue());
    }
    return new StreamPosition(nextSnapshot, new ArrayList<>(pending.values()));
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    Long enumerator = enumeratorProgress.get(checkpointId);
    Long reader = readerProgress.get(checkpointId);
    enumeratorProgress.headMap(checkpointId, true).clear();
    readerProgress.headMap(checkpointId, true).clear();
    String consumer = consumerId;
    if (consumer == null || enumerator == null || reader == null) {
      return; // a later checkpoint records it
    }
    try {
      new ConsumerManager(opened.fileIO(), opened.table().path())
          .record(consumer, Math.min(enumerator, reader));
    } catch (IOException e) {
      // The stream itself is intact (its position is in the checkpoint); the next completed
      // checkpoint records the consumer again.
      LOG.warn("Cannot record consumer '{}' of {}: {}", consumer, loader, e.getMessage(), e);
    }
  }

  @Override
  public void close() throws IOException {
    if (opened != null) {
      opened.close();
    }
  }
}
