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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;

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

  /** The bucket's running, finished and handed-out compactions. */
  private final BucketCompactions compactions;

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
    this.compactions = new BucketCompactions(table, partition, bucket, view);
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
    // Unlike MergeTreeWriter, no compaction is picked before the handed-out one settled: while the
    // view still shows every input of it, its commit has not settled, and a pick now would redo it.
    compactions.settle();
    compactions.collectIfDone();
    if (executor != null
        && !options.writeOnly()
        && compactions.allSettled()
        && compactions.idle()) {
      List<List<DataFileMeta>> runs = picker.pick(view.files(partition, bucket));
      if (!runs.isEmpty()) {
        compactions.start(executor, () -> AppendCompactTask.run(table, partition, bucket, runs));
      }
    }
  }

  @Override
  public void compactNow(boolean full) throws IOException {
    compactions.awaitRunning();
    if (compactions.hasFinished() || !compactions.allSettled()) {
      return;
    }
    List<DataFileMeta> files = view.files(partition, bucket);
    List<List<DataFileMeta>> runs = full ? picker.pickFull(files) : picker.pick(files);
    if (!runs.isEmpty()) {
      compactions.finishedNow(AppendCompactTask.run(table, partition, bucket, runs));
    }
  }

  @Override
  public CommitMessage prepareCommit(long baseSnapshotId) throws IOException {
    flush();
    checkNotFailed();
    compactions.collectIfDone();
    CompactResult compaction = compactions.handOut();
    List<DataFileMeta> before = compaction == null ? List.of() : compaction.before();
    List<DataFileMeta> after = compaction == null ? List.of() : compaction.after();
    CommitMessage message =
        new CommitMessage(
            partition, bucket, options.bucket(), pending, before, after, baseSnapshotId);
    pending.clear();
    return message;
  }

  @Override
  public void close() {
    compactions.close(true);
    if (writer != null) {
      writer.abort();
      writer = null;
    }
    TableWrite.deleteQuietly(table, partition, bucket, pending);
    pending.clear();
  }
}
