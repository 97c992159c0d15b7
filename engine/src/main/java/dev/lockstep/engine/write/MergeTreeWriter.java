package dev.lockstep.engine.write;

import dev.lockstep.engine.compact.CompactResult;
import dev.lockstep.engine.compact.CompactTask;
import dev.lockstep.engine.compact.CompactUnit;
import dev.lockstep.engine.compact.UniversalCompaction;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.LiveFileView;
import dev.lockstep.engine.table.CoreOptions;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bucket of a primary-key table, an LSM tree.
 *
 * <ol>
 *   <li>Rows go to a sorted in-memory buffer (later write of a key wins); when its estimated size
 *       reaches {@code write-buffer-size} it is flushed to a new level-0 file (one sorted run). Rows
 *       of flushed files carry {@code _SNAPSHOT = -1} (the commit decides it) and a sequence number
 *       that grows across the writer's batch.
 *   <li>Compaction (not with {@code write-only=true}) works on the bucket's <em>committed</em> files
 *       as the {@link LiveFileView} sees them, including other writers' files, never on this batch's
 *       own uncommitted files. It starts in the background when the view has at least
 *       {@code num-sorted-run.compaction-trigger} sorted runs, one at a time per bucket.
 *   <li>Write stall: while the sorted runs (committed and this batch's) exceed
 *       {@code num-sorted-run.stop-trigger}, a flush waits for the running compaction.
 *   <li>{@link #prepareCommit} hands out the new files and a finished compaction. No new compaction
 *       starts until the view has moved past that commit ({@link #onRefresh}): if the committer
 *       dropped the compaction because of a conflict, the view still shows its inputs (or their
 *       replacements) and compaction simply starts again from there.
 * </ol>
 */
final class MergeTreeWriter implements BucketWriter {

  private static final Logger LOG = LoggerFactory.getLogger(MergeTreeWriter.class);

  private final FileStoreTable table;
  private final CoreOptions options;
  private final String partition;
  private final int bucket;
  private final LiveFileView view;
  private final ExecutorService executor;
  private final int[] keyIndexes;
  private final UniversalCompaction picker;
  private final TreeMap<GenericRow, Buffered> buffer = new TreeMap<>(RowComparator.INSTANCE);
  private final List<DataFileMeta> pending = new ArrayList<>();
  private long bufferBytes;
  private long sequence;
  private Future<CompactResult> running;
  private CompactResult finished;
  private boolean inFlight;

  private record Buffered(GenericRow row, long sequence, boolean deleted) {}

  MergeTreeWriter(FileStoreTable table, String partition, int bucket, LiveFileView view,
      ExecutorService executor) {
    this.table = table;
    this.options = table.options();
    this.partition = partition;
    this.bucket = bucket;
    this.view = view;
    this.executor = executor;
    this.keyIndexes = table.schema().primaryKeyIndexes();
    this.picker = new UniversalCompaction(options.compactionTrigger(), options.maxLevel());
  }

  @Override
  public void write(GenericRow row, boolean delete) throws IOException {
    GenericRow key = row.project(keyIndexes);
    Buffered old = buffer.put(key, new Buffered(row, sequence++, delete));
    bufferBytes += row.estimatedBytes() + (old == null ? key.estimatedBytes() : 0);
    if (bufferBytes >= options.writeBufferBytes()) {
      flush();
    }
  }

  @Override
  public void flush() throws IOException {
    if (buffer.isEmpty()) {
      return;
    }
    RollingFileWriter writer = new RollingFileWriter(table, partition, bucket, 0);
    for (var entry : buffer.entrySet()) {
      Buffered b = entry.getValue();
      writer.write(table.keyValueFileRow(b.row(), DataFileMeta.UNCOMMITTED, b.sequence(),
          b.deleted()), entry.getKey(), b.sequence());
    }
    pending.addAll(writer.finish());
    buffer.clear();
    bufferBytes = 0;
    if (running != null && sortedRuns() > options.stopTrigger()) {
      LOG.debug("Write stall in bucket {} of '{}': {} sorted runs", bucket, partition, sortedRuns());
      awaitRunning();
    }
  }

  private int sortedRuns() {
    return UniversalCompaction.sortedRuns(view.files(partition, bucket)).size() + pending.size();
  }

  @Override
  public void onRefresh() throws IOException {
    inFlight = false;
    collectIfDone();
    if (!options.writeOnly() && running == null && finished == null) {
      Optional<CompactUnit> unit = picker.pick(view.files(partition, bucket));
      if (unit.isPresent()) {
        CompactUnit u = unit.get();
        running = executor.submit(() -> CompactTask.run(table, partition, bucket, u));
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
    Optional<CompactUnit> unit = full ? picker.pickFull(files) : picker.pick(files);
    if (unit.isPresent()) {
      finished = CompactTask.run(table, partition, bucket, unit.get());
    }
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
      LOG.warn("Compaction of bucket {} of '{}' in {} failed; it will be retried: {}", bucket,
          partition, table.fullName(), e.getCause().toString());
    } finally {
      running = null;
    }
  }

  @Override
  public CommitMessage prepareCommit(long baseSnapshotId) throws IOException {
    flush();
    if (running != null && sortedRuns() > options.stopTrigger()) {
      awaitRunning();
    }
    collectIfDone();
    List<DataFileMeta> before = finished == null ? List.of() : finished.before();
    List<DataFileMeta> after = finished == null ? List.of() : finished.after();
    CommitMessage message = new CommitMessage(partition, bucket, options.bucket(), pending, before,
        after, baseSnapshotId);
    if (finished != null) {
      inFlight = true;
      finished = null;
    }
    pending.clear();
    return message;
  }

  @Override
  public void close() {
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
    TableWrite.deleteQuietly(table, partition, bucket, pending);
    pending.clear();
    buffer.clear();
  }
}
