package dev.lockstep.engine.operation;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.compact.AppendCompactTask;
import dev.lockstep.engine.compact.AppendCompaction;
import dev.lockstep.engine.compact.CompactResult;
import dev.lockstep.engine.compact.CompactTask;
import dev.lockstep.engine.compact.CompactUnit;
import dev.lockstep.engine.compact.UniversalCompaction;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.LiveFileView;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.write.CommitMessage;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;

/**
 * A dedicated compaction job for a table whose writers run with {@code write-only=true}: it is then
 * the only one that deletes files, so no commit ever meets a file conflict.
 *
 * <p>Each {@link #compactOnce} moves its view to the latest snapshot, compacts every bucket that
 * needs it (primary-key tables: universal pick, or everything with {@code full}; append tables:
 * runs of small files, or everything from the first small file with {@code full}, see {@link
 * AppendCompaction}), and commits the result as one COMPACT snapshot under its own commit user.
 * Buckets are compacted on {@code compaction.max.thread} threads. Identifiers start at the wall
 * clock in microseconds and grow by one per commit, so that they increase across restarts. Not
 * thread-safe; run it in a loop and close it at the end.
 */
public final class TableCompactor implements Closeable {

  private final TableStore table;
  private final TableCommit commit;
  private final LiveFileView view;
  private final UniversalCompaction picker;
  private final AppendCompaction appendPicker;
  private final ExecutorService executor;
  private long nextIdentifier = System.currentTimeMillis() * 1000;
  private boolean declaredFresh;
  private Predicate<String> partitionFilter = p -> true;

  public TableCompactor(TableStore table, String commitUser) {
    this.table = table;
    table.requireWritable();
    this.commit = new TableCommit(table, commitUser);
    this.view = new LiveFileView(table);
    this.picker =
        new UniversalCompaction(table.options().compactionTrigger(), table.options().maxLevel());
    this.appendPicker =
        new AppendCompaction(
            table.options().compactionMinFileNum(),
            table.options().compactionMaxFileNum(),
            table.options().targetFileBytes());
    this.executor =
        Executors.newFixedThreadPool(
            table.options().compactionMaxThreads(),
            r -> {
              Thread thread = new Thread(r, "lockstep-compactor-" + table.fullName());
              thread.setDaemon(true);
              return thread;
            });
  }

  /** Compacts only the partitions whose paths pass {@code filter} (default: all). */
  public TableCompactor withPartitionFilter(Predicate<String> filter) {
    this.partitionFilter = filter;
    return this;
  }

  /** File conflicts met so far; zero when every writer is write-only. */
  public long fileConflicts() {
    return commit.fileConflicts();
  }

  /**
   * One round. Returns the commit's result, or empty when nothing needed compaction.
   *
   * @throws dev.lockstep.commit.CommitStateUnknownException when the commit's fate is unknown
   */
  public Optional<CommitResult> compactOnce(boolean full) throws IOException {
    if (!declaredFresh) {
      // The identifiers come from this object's clock reading: no earlier snapshot holds one, so
      // the exactly-once check need not read (possibly damaged) older snapshots.
      commit.withFreshCommitUser();
      declaredFresh = true;
    }
    view.refresh();
    List<Future<CompactResult>> running = new ArrayList<>();
    for (BucketId bucket : view.buckets()) {
      if (!partitionFilter.test(bucket.partition())) {
        continue;
      }
      List<DataFileMeta> files = view.files(bucket.partition(), bucket.bucket());
      if (!table.primaryKeyTable()) {
        List<List<DataFileMeta>> runs =
            full ? appendPicker.pickFull(files) : appendPicker.pick(files);
        if (!runs.isEmpty()) {
          running.add(
              executor.submit(
                  () -> AppendCompactTask.run(table, bucket.partition(), bucket.bucket(), runs)));
        }
        continue;
      }
      Optional<CompactUnit> unit = full ? picker.pickFull(files) : picker.pick(files);
      unit.ifPresent(
          u ->
              running.add(
                  executor.submit(
                      () -> CompactTask.run(table, bucket.partition(), bucket.bucket(), u))));
    }
    List<CommitMessage> messages = new ArrayList<>();
    IOException failure = null;
    boolean interrupted = false;
    for (Future<CompactResult> future : running) {
      try {
        // After an interrupt, still wait for each running task: its output must be deleted.
        CompactResult r = interrupted ? getUninterruptibly(future) : future.get();
        messages.add(
            new CommitMessage(
                r.partition(),
                r.bucket(),
                table.options().bucket(),
                List.of(),
                r.before(),
                r.after(),
                view.snapshotId()));
      } catch (InterruptedException e) {
        interrupted = true;
        failure =
            failure == null ? new InterruptedIOException("Interrupted while compacting") : failure;
        try {
          CompactResult r = getUninterruptibly(future);
          messages.add(
              new CommitMessage(
                  r.partition(),
                  r.bucket(),
                  table.options().bucket(),
                  List.of(),
                  r.before(),
                  r.after(),
                  view.snapshotId()));
        } catch (ExecutionException failed) {
          // The task failed and left no output.
        }
      } catch (ExecutionException e) {
        IOException cause =
            e.getCause() instanceof IOException
                ? (IOException) e.getCause()
                : new IOException("Compaction of " + table.fullName() + " failed", e.getCause());
        if (failure == null) {
          failure = cause;
        } else {
          failure.addSuppressed(cause);
        }
      }
    }
    if (failure != null) {
      // Failed tasks left no output; the finished ones' output is not committed: delete it.
      for (CommitMessage m : messages) {
        deleteQuietly(m);
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      throw failure;
    }
    if (messages.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(commit.commit(nextIdentifier++, messages));
    } catch (dev.lockstep.commit.CommitStateUnknownException unknown) {
      throw unknown; // the snapshot may have landed: its output may be live
    } catch (IOException | RuntimeException failed) {
      // Nothing was published (TableCommit's contract): the output is nobody's.
      boolean wasInterrupted = Thread.interrupted(); // deletes must not fail on the interrupt
      for (CommitMessage m : messages) {
        deleteQuietly(m);
      }
      if (wasInterrupted) {
        Thread.currentThread().interrupt();
      }
      throw failed;
    }
  }

  /** Stops the compaction threads (after a running round finishes). */
  @Override
  public void close() {
    executor.shutdown();
  }

  private static <T> T getUninterruptibly(Future<T> future) throws ExecutionException {
    while (true) {
      try {
        return future.get();
      } catch (InterruptedException again) {
        // Keep waiting: the task's output must be known to be deleted.
      }
    }
  }

  private void deleteQuietly(CommitMessage m) {
    for (DataFileMeta f : m.compactAfter()) {
      try {
        table
            .fileIO()
            .delete(table.bucketPath(m.partition(), m.bucket()).child(f.fileName()), false);
      } catch (IOException ignored) {
        // Unreferenced; orphan-file removal collects it.
      }
    }
  }
}
