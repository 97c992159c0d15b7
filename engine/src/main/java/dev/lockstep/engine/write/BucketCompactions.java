package dev.lockstep.engine.write;

import dev.lockstep.engine.compact.CompactResult;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.LiveFileView;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compactions of one bucket writer ({@link MergeTreeWriter}, {@link AppendBucketWriter}): at
 * most one that runs in the background or has finished and is not handed out yet, and those handed
 * out with a batch whose commit the writer's {@link LiveFileView} has not shown yet
 * (<em>unsettled</em>). Not thread-safe; the writer decides when to start one.
 *
 * <p><b>Settling.</b> At each refresh of the view, the handed-out compactions are checked in the
 * order they were handed out. One is settled when
 *
 * <ul>
 *   <li>the view shows one of its outputs (it landed), or
 *   <li>one of its inputs is neither in the view nor an output of an earlier unsettled one (another
 *       commit replaced it, or an earlier compaction it built on did not land: the committer drops
 *       it, or dropped it already, as a file conflict), or
 *   <li>it was handed out {@link #MAX_REFRESHES} refreshes ago (its batch was never committed, or
 *       the committer dropped it without touching its inputs: an overlap, a failed COMPACT commit).
 * </ul>
 *
 * <p><b>The planned files</b> ({@link #plannedFiles()}) are the bucket's files as they will be once
 * the unsettled compactions land: the view's files, minus their inputs, plus their outputs, in
 * hand-out order. A compaction picked from them may take an unsettled compaction's outputs as
 * inputs; if that one does not land, the later one names a file that is not live, and the committer
 * drops it too (a file conflict) and deletes its outputs. A compaction's outputs are written from
 * committed rows only and carry every row's commit snapshot explicitly, so they merge by commit
 * order before their own commit; in the plan they carry {@link #plannedSnapshot} as their file's
 * commit snapshot, which no row of theirs reads.
 */
final class BucketCompactions {

  private static final Logger LOG = LoggerFactory.getLogger(BucketCompactions.class);

  /**
   * Refreshes after which a handed-out compaction whose commit the view has not shown counts as
   * never committed, and is no longer planned on.
   */
  static final int MAX_REFRESHES = 3;

  private final TableStore table;
  private final String partition;
  private final int bucket;
  private final LiveFileView view;

  private Future<CompactResult> running;

  /**
   * Who owns the outputs of {@link #running} when it ends: {@link #TASK_RUNNING} until the task
   * returns them ({@link #TASK_DONE}) or {@link #close(boolean)} abandons it ({@link
   * #TASK_ABANDONED}), and then the task deletes them itself.
   */
  private AtomicInteger runningState;

  private static final int TASK_RUNNING = 0;
  private static final int TASK_DONE = 1;
  private static final int TASK_ABANDONED = 2;

  private CompactResult finished;

  /** Handed out, not settled, in hand-out order. */
  private final List<HandedOut> handedOut = new ArrayList<>();

  private long stalls;
  private long stallNanos;
  private long handedOutCount;
  private long discarded;

  private static final class HandedOut {
    final CompactResult result;
    int refreshes;

    HandedOut(CompactResult result) {
      this.result = result;
    }
  }

  BucketCompactions(TableStore table, String partition, int bucket, LiveFileView view) {
    this.table = table;
    this.partition = partition;
    this.bucket = bucket;
    this.view = view;
  }

  /** Nothing runs and nothing finished waits to be handed out: a new compaction may start. */
  boolean idle() {
    return running == null && finished == null;
  }

  boolean isRunning() {
    return running != null;
  }

  boolean hasFinished() {
    return finished != null;
  }

  /** Every compaction handed out has settled. */
  boolean allSettled() {
    return handedOut.isEmpty();
  }

  /** Handed-out compactions not settled yet. */
  int unsettled() {
    return handedOut.size();
  }

  /** Starts {@code task} in the background; only when {@link #idle}. */
  void start(ExecutorService executor, Callable<CompactResult> task) {
    if (!idle()) {
      throw new IllegalStateException("A compaction of bucket " + bucket + " is not handed out");
    }
    AtomicInteger state = new AtomicInteger(TASK_RUNNING);
    runningState = state;
    running =
        executor.submit(
            () -> {
              CompactResult result = task.call();
              if (!state.compareAndSet(TASK_RUNNING, TASK_DONE)) {
                // close() abandoned it while it finished: nobody else will delete its outputs.
                TableWrite.deleteQuietly(table, partition, bucket, result.after());
                throw new CancellationException("Abandoned by close()");
              }
              return result;
            });
  }

  /** A compaction run in the caller's thread; only when {@link #idle}. */
  void finishedNow(CompactResult result) {
    if (!idle()) {
      throw new IllegalStateException("A compaction of bucket " + bucket + " is not handed out");
    }
    finished = result;
  }

  /** Collects the background compaction when it has finished, without waiting. */
  void collectIfDone() throws IOException {
    if (running != null && running.isDone()) {
      awaitRunning();
    }
  }

  /** Waits for the background compaction, if one runs. A failed one is logged and forgotten. */
  void awaitRunning() throws IOException {
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
      if (e.getCause() instanceof java.io.FileNotFoundException) {
        // Expected now and then: the committer dropped the compaction this one was planned on (and
        // deleted its outputs), or another commit replaced an input and expiration deleted it.
        LOG.info(
            "Compaction of bucket {} of '{}' in {} lost an input file, which another commit"
                + " replaced or a dropped compaction never published; it will be picked again: {}",
            bucket,
            partition,
            table.fullName(),
            e.getCause().toString());
        return;
      }
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

  /**
   * Write stall: waits for the running compaction and counts the wait.
   *
   * @param runs the sorted runs that made the writer wait, for the log
   */
  void stall(int runs) throws IOException {
    long start = System.nanoTime();
    awaitRunning();
    long waited = System.nanoTime() - start;
    stalls++;
    stallNanos += waited;
    LOG.debug(
        "Write stall in bucket {} of '{}': {} sorted runs, waited {} ms for the running compaction",
        bucket,
        partition,
        runs,
        waited / 1_000_000);
  }

  /**
   * The view was refreshed: settles the handed-out compactions (class javadoc), each one refresh
   * older.
   */
  void settle() {
    if (handedOut.isEmpty()) {
      return;
    }
    Set<String> live = names(view.files(partition, bucket));
    Set<String> plannedOutputs = new HashSet<>();
    for (Iterator<HandedOut> it = handedOut.iterator(); it.hasNext(); ) {
      HandedOut h = it.next();
      h.refreshes++;
      boolean landed = false;
      for (DataFileMeta f : h.result.after()) {
        landed |= live.contains(f.fileName());
      }
      boolean replaced = false;
      for (DataFileMeta f : h.result.before()) {
        replaced |= !live.contains(f.fileName()) && !plannedOutputs.contains(f.fileName());
      }
      if (landed || replaced || h.refreshes >= MAX_REFRESHES) {
        it.remove();
      } else {
        plannedOutputs.addAll(names(h.result.after()));
      }
    }
  }

  /**
   * The bucket's files once the unsettled compactions land (class javadoc); the view's files when
   * every compaction settled.
   */
  List<DataFileMeta> plannedFiles() {
    List<DataFileMeta> files = view.files(partition, bucket);
    if (handedOut.isEmpty()) {
      return files;
    }
    Map<String, DataFileMeta> planned = new LinkedHashMap<>();
    files.forEach(f -> planned.put(f.fileName(), f));
    long snapshot = plannedSnapshot();
    for (HandedOut h : handedOut) {
      h.result.before().forEach(f -> planned.remove(f.fileName()));
      for (DataFileMeta f : h.result.after()) {
        planned.put(f.fileName(), f.commitSnapshot() < 0 ? f.withCommitSnapshot(snapshot) : f);
      }
    }
    return new ArrayList<>(planned.values());
  }

  /**
   * The commit snapshot a planned output file carries: the first the commit can land on (a lower
   * bound of the real one). Every row of a compaction output has its own commit snapshot, so a
   * merge never reads this.
   */
  private long plannedSnapshot() {
    return view.snapshotId() + 1;
  }

  /**
   * Whether a compaction may be picked from {@link #plannedFiles()}: not while an unsettled
   * compaction has no output (a full compaction whose every key ended in a retraction). A
   * compaction planned on such a one would not depend on it through a file, so it could land while
   * that one is dropped. That is still correct (each key of the dropped one's inputs ends in a
   * retraction that stays live with them, so nothing a later full compaction drops can come back),
   * but the case is rare, and the writer keeps to the conservative rule there: no pick before the
   * handed-out compaction settled.
   */
  boolean mayPlan() {
    for (HandedOut h : handedOut) {
      if (h.result.after().isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Drops the finished compaction when one of its inputs is not among the planned files any more
   * (another commit replaced it, or the compaction it built on did not land): the committer would
   * drop it as a file conflict. Its outputs are deleted.
   */
  void discardIfStale() {
    if (finished == null) {
      return;
    }
    Set<String> planned = names(plannedFiles());
    for (DataFileMeta f : finished.before()) {
      if (!planned.contains(f.fileName())) {
        LOG.debug(
            "Discarding the finished compaction of bucket {} of '{}' in {}: its input {} is gone",
            bucket,
            partition,
            table.fullName(),
            f.fileName());
        TableWrite.deleteQuietly(table, partition, bucket, finished.after());
        finished = null;
        discarded++;
        return;
      }
    }
  }

  /**
   * Hands out the finished compaction, if any, and follows it until it settles.
   *
   * @return it, or {@code null}
   */
  CompactResult handOut() {
    CompactResult result = finished;
    if (result != null) {
      handedOut.add(new HandedOut(result));
      handedOutCount++;
      finished = null;
    }
    return result;
  }

  /**
   * Deletes the outputs of every compaction not handed out. A running one is waited for, or with
   * {@code abandon} cancelled: a queued task never starts, a running one stops at its next check
   * and deletes what it wrote (as Paimon's writer cancels its compaction on close), instead of
   * close waiting for a rewrite that is then deleted.
   */
  void close(boolean abandon) {
    if (running != null) {
      if (abandon && runningState.compareAndSet(TASK_RUNNING, TASK_ABANDONED)) {
        running.cancel(true);
        running = null;
      }
    }
    if (running != null) {
      try {
        CompactResult result = running.get();
        TableWrite.deleteQuietly(table, partition, bucket, result.after());
      } catch (Exception ignored) {
        // Failed: the task left no output.
      }
      running = null;
    }
    if (finished != null) {
      TableWrite.deleteQuietly(table, partition, bucket, finished.after());
      finished = null;
    }
    handedOut.clear();
    if (stalls > 0 || handedOutCount > 0 || discarded > 0) {
      LOG.debug(
          "Bucket {} of '{}' in {}: {} compactions handed out, {} discarded, {} write stalls"
              + " waiting {} ms in all",
          bucket,
          partition,
          table.fullName(),
          handedOutCount,
          discarded,
          stalls,
          stallNanos / 1_000_000);
    }
  }

  /** Write stalls so far (waits for the running compaction). */
  long stalls() {
    return stalls;
  }

  /** Compactions handed out so far. */
  long handedOutCount() {
    return handedOutCount;
  }

  private static Set<String> names(List<DataFileMeta> files) {
    Set<String> names = new HashSet<>();
    files.forEach(f -> names.add(f.fileName()));
    return names;
  }
}
