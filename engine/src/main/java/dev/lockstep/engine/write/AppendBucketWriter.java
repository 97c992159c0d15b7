package dev.lockstep.engine.write;

import dev.lockstep.engine.compact.AppendCompactTask;
import dev.lockstep.engine.compact.AppendCompaction;
import dev.lockstep.engine.compact.CompactResult;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.LiveFileView;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.RollingFileWriter;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bucket of an append table: rows stream straight into level-0 files that roll at {@code
 * target-file-size}; each file's rows carry sequence numbers that grow across the writer's batches.
 *
 * <p>Compaction (not with {@code write-only=true}) works as in primary-key buckets on the bucket's
 * <em>committed</em> files as the {@link LiveFileView} sees them, other writers' included, never on
 * this batch's own files: at each refresh, when no compaction of the bucket is running, finished or
 * handed out and not yet settled, {@link AppendCompaction#pick} chooses runs of small files and a
 * background task rewrites them ({@link AppendCompactTask}); {@link #prepareCommit} hands a
 * finished one out with the batch, and the committer commits it as a COMPACT snapshot (or drops it
 * after a file conflict). Appends never wait for a compaction.
 */
final class AppendBucketWriter implements BucketWriter {

  private static final Logger LOG = LoggerFactory.getLogger(AppendBucketWriter.class);

  private final TableStore table;
  private final CoreOptions options;
  private final String partition;
  private final int bucket;
  private final LiveFileView view;

  /** Where background compactions run; {@code null} for a write-only writer. */
  private final ExecutorService executor;

  private final AppendCompaction picker;
  private final List<DataFileMeta> pending = new ArrayList<>();
  private RollingFileWriter writer;
  private long sequence;

  private Future<CompactResult> running;

  /**
   * Who owns the outputs of {@link #running} when it ends: {@link #TASK_RUNNING} until the task
   * returns them ({@link #TASK_DONE}) or {@link #close()} abandons it ({@link #TASK_ABANDONED}),
   * and then the task deletes them itself.
   */
  private AtomicInteger runningState;

  private static final int TASK_RUNNING = 0;
  private static final int TASK_DONE = 1;
  private static final int TASK_ABANDONED = 2;
  private CompactResult finished;
  private boolean inFlight;

  /** The input file names of the compaction handed out by the last {@link #prepareCommit}. */
  private Set<String> inFlightInputs = Set.of();

  private int refreshesInFlight;

  /** Rows stream into files, so a failed file write loses the batch: the writer then refuses. */
  private IOException failure;

  AppendBucketWriter(
      TableStore table, String partition, int bucket, LiveFileView view, ExecutorService executor) {
    this.table = table;
    this.options = table.options();
    this.partition = partition;
    this.bucket = bucket;
    this.view = view;
    this.executor = executor;
    this.picker =
        new AppendCompaction(
            options.compactionMinFileNum(),
            options.compactionMaxFileNum(),
            options.targetFileBytes());
  }

  @Override
  public void write(GenericRow row, RowKind kind) throws IOException {
    checkNotFailed();
    if (writer == null) {
      writer = new RollingFileWriter(table, partition, bucket, 0);
    }
    try {
      writer.write(row, sequence++);
    } catch (IOException e) {
      failure = e;
      throw e;
    }
  }

  @Override
  public void flush() throws IOException {
    checkNotFailed();
    if (writer != null) {
      try {
        pending.addAll(writer.finish());
      } catch (IOException e) {
        failure = e;
        throw e;
      }
      writer = null;
    }
  }

  private void checkNotFailed() throws IOException {
    if (failure != null) {
      throw new IOException(
          "A data file of bucket "
              + bucket
              + " of '"
              + partition
              + "' in "
              + table.fullName()
              + " failed to write, so this batch's rows of that bucket are lost."
              + " Close this TableWrite and write the batch again.",
          failure);
    }
  }

  @Override
  public void onRefresh() throws IOException {
    if (inFlight) {
      // As in MergeTreeWriter: while the view still shows every input of the handed-out
      // compaction, its commit has not settled, and a pick now would redo it.
      refreshesInFlight++;
      if (refreshesInFlight >= MergeTreeWriter.IN_FLIGHT_MAX_REFRESHES
          || !viewHoldsAll(inFlightInputs)) {
        inFlight = false;
        inFlightInputs = Set.of();
      }
    }
    collectIfDone();
    if (executor != null
        && !options.writeOnly()
        && !inFlight
        && running == null
        && finished == null) {
      List<List<DataFileMeta>> runs = picker.pick(view.files(partition, bucket));
      if (!runs.isEmpty()) {
        AtomicInteger state = new AtomicInteger(TASK_RUNNING);
        runningState = state;
        running =
            executor.submit(
                () -> {
                  CompactResult result = AppendCompactTask.run(table, partition, bucket, runs);
                  if (!state.compareAndSet(TASK_RUNNING, TASK_DONE)) {
                    // close() abandoned it while it finished: nobody will delete its outputs.
                    TableWrite.deleteQuietly(table, partition, bucket, result.after());
                    throw new CancellationException("Abandoned by close()");
                  }
                  return result;
                });
      }
    }
  }

  @Override
  public void compactNow(boolean full) throws IOException {
    awaitRunning();
    if (finished != null || inFlight) {
      return;
    }
    List<DataFileMeta> files = view.files(partition, bucket);
    List<List<DataFileMeta>> runs = full ? picker.pickFull(files) : picker.pick(files);
    if (!runs.isEmpty()) {
      finished = AppendCompactTask.run(table, partition, bucket, runs);
    }
  }

  private boolean viewHoldsAll(Set<String> names) {
    int held = 0;
    for (DataFileMeta f : view.files(partition, bucket)) {
      if (names.contains(f.fileName())) {
        held++;
      }
    }
    return held == names.size();
  }

  private void collectIfDone() throws IOException {
    if (running != null && running.isDone()) {
      awaitRunning();
    }
  }

  private void awaitRunning() throws IOException {
    if (running == null) {
      return;
    }
    try {
      finished = running.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while waiting for a compaction");
    } catch (ExecutionException e) {
      // The task deleted its partial output; compaction starts again after the next refresh.
      LOG.warn(
          "Compaction of bucket {} of '{}' in {} failed; it will be retried: {}",
          bucket,
          partition,
          table.fullName(),
          e.getCause().toString());
    } finally {
      running = null;
    }
  }

  @Override
  public CommitMessage prepareCommit(long baseSnapshotId) throws IOException {
    flush();
    checkNotFailed();
    collectIfDone();
    List<DataFileMeta> before = finished == null ? List.of() : finished.before();
    List<DataFileMeta> after = finished == null ? List.of() : finished.after();
    CommitMessage message =
        new CommitMessage(
            partition, bucket, options.bucket(), pending, before, after, baseSnapshotId);
    if (finished != null) {
      inFlight = true;
      refreshesInFlight = 0;
      Set<String> inputs = new HashSet<>();
      for (DataFileMeta f : finished.before()) {
        inputs.add(f.fileName());
      }
      inFlightInputs = inputs;
      finished = null;
    }
    pending.clear();
    return message;
  }

  @Override
  public void close() {
    if (running != null) {
      if (runningState.compareAndSet(TASK_RUNNING, TASK_ABANDONED)) {
        // Its result would never be committed: a queued task never starts, a running one stops at
        // its next check and deletes what it wrote (as Paimon's writer cancels its compaction on
        // close), instead of close() waiting for a rewrite that is then deleted.
        running.cancel(true);
      } else {
        try {
          CompactResult result = running.get();
          TableWrite.deleteQuietly(table, partition, bucket, result.after());
        } catch (Exception ignored) {
          // Failed: the task left no output.
        }
      }
      running = null;
    }
    if (finished != null) {
      TableWrite.deleteQuietly(table, partition, bucket, finished.after());
      finished = null;
    }
    if (writer != null) {
      writer.abort();
      writer = null;
    }
    TableWrite.deleteQuietly(table, partition, bucket, pending);
    pending.clear();
  }
}
