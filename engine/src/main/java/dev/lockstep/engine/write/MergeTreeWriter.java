package dev.lockstep.engine.write;

import dev.lockstep.engine.compact.CompactResult;
import dev.lockstep.engine.compact.CompactTask;
import dev.lockstep.engine.compact.CompactUnit;
import dev.lockstep.engine.compact.UniversalCompaction;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.LiveFileView;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.RollingFileWriter;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bucket of a primary-key table, an LSM tree.
 *
 * <ol>
 *   <li>Rows go to an in-memory buffer in write order, serialized into reused byte pages ({@link
 *       BinaryWriteBuffer}; their sequence number is their position, their kind one byte beside
 *       them). {@code write-buffer-size} bounds the bytes of the buffers of all buckets of the
 *       {@link TableWrite} together ({@link WriteBufferPool}): when a write reaches it, the largest
 *       buffer, whichever bucket it is, is sorted by key (on a normalized prefix of the first key
 *       column, then by whole keys compared in the pages where prefixes tie; stable, so the later
 *       write of a key wins and the earlier ones are dropped; with {@code sequence.field}, the row
 *       with the greatest sequence-field values wins, the later one of equals) and flushed to a new
 *       level-0 file (one sorted run). Only the rows written are turned back into objects. Sorting
 *       once per flush is much cheaper than keeping a sorted map per row; the price is that
 *       overwritten rows count against the buffer until the flush. Rows of flushed files carry
 *       {@code _SNAPSHOT = -1} (the commit decides it) and a sequence number that grows across the
 *       writer's batch.
 *   <li>Compaction (not with {@code write-only=true}) works on the bucket's <em>committed</em>
 *       files as the {@link LiveFileView} sees them, including other writers' files, never on this
 *       batch's own uncommitted files. It starts in the background when the view has at least
 *       {@code num-sorted-run.compaction-trigger} sorted runs, one at a time per bucket.
 *   <li>Write stall: while the sorted runs (committed and this batch's) exceed {@code
 *       num-sorted-run.stop-trigger}, a flush waits for the running compaction.
 *   <li>{@link #prepareCommit} hands out the new files and a finished compaction. No new compaction
 *       starts until the view has moved past that commit ({@link #onRefresh}: the view no longer
 *       shows every input of the compaction): a streaming sink refreshes for its next batch before
 *       the last one is committed, and a compaction picked from that view would redo the handed-out
 *       one only to be dropped as a file conflict. If the committer dropped the compaction because
 *       of a conflict, another commit replaced its inputs and compaction starts again from the
 *       view; if the batch is never committed, compaction starts again after {@link
 *       #IN_FLIGHT_MAX_REFRESHES} refreshes.
 * </ol>
 */
final class MergeTreeWriter implements BucketWriter {

  /** The name prefix of changelog files in a bucket directory (Paimon's). */
  static final String CHANGELOG_PREFIX = "changelog-";

  private static final Logger LOG = LoggerFactory.getLogger(MergeTreeWriter.class);

  private final TableStore table;
  private final CoreOptions options;
  private final String partition;
  private final int bucket;
  private final LiveFileView view;
  private final ExecutorService executor;
  private final int[] keyIndexes;

  /** The {@code sequence.field} columns; empty when arrival alone orders a key's rows. */
  private final int[] sequenceFields;

  private final UniversalCompaction picker;

  /**
   * Rows of the batch not flushed yet, as written (the caller's rows, not data-file rows), in write
   * order, serialized into pages of the {@link WriteBufferPool}: the row at position {@code i} has
   * sequence number {@code firstSequence + i}. Data-file rows are built only while a flush writes
   * them.
   */
  private final BinaryWriteBuffer buffer;

  private long firstSequence;

  /** The memory bound shared by the buckets of this writer's {@link TableWrite}. */
  private final WriteBufferPool pool;

  private final List<DataFileMeta> pending = new ArrayList<>();

  /** This batch's changelog files, not yet handed out. */
  private final List<DataFileMeta> pendingChangelog = new ArrayList<>();

  private final ChangelogOptions.Producer producer;
  private long bufferBytes;
  private long sequence;
  private Future<CompactResult> running;
  private CompactResult finished;
  private boolean inFlight;

  /** The input file names of the compaction handed out by the last {@link #prepareCommit}. */
  private java.util.Set<String> inFlightInputs = java.util.Set.of();

  /** Refreshes since that compaction was handed out. */
  private int refreshesInFlight;

  /**
   * Refreshes after which a handed-out compaction whose inputs the view still shows counts as never
   * committed (its batch was dropped), and compaction starts again from the view.
   */
  static final int IN_FLIGHT_MAX_REFRESHES = 3;

  MergeTreeWriter(
      TableStore table,
      String partition,
      int bucket,
      LiveFileView view,
      ExecutorService executor,
      WriteBufferPool pool) {
    this.table = table;
    this.pool = pool;
    this.options = table.options();
    this.partition = partition;
    this.bucket = bucket;
    this.view = view;
    this.executor = executor;
    this.keyIndexes = table.schema().primaryKeyIndexes();
    this.sequenceFields = table.sequenceFieldIndexes();
    this.producer = table.changelogProducer();
    this.picker = new UniversalCompaction(options.compactionTrigger(), options.maxLevel());
    this.buffer = new BinaryWriteBuffer(table.schema().rowType(), keyIndexes, pool);
  }

  @Override
  public void write(GenericRow row, RowKind kind) throws IOException {
    if (buffer.size() == 0) {
      firstSequence = sequence;
    }
    sequence++;
    long bytes = buffer.add(row, kind);
    bufferBytes += bytes;
    pool.add(bytes);
  }

  /** The bytes of this bucket's buffer: its rows serialized, and their index. */
  long bufferedBytes() {
    return bufferBytes;
  }

  /** The data-file row of the buffered row at {@code position}. */
  private GenericRow fileRow(int position) {
    return table.keyValueFileRow(
        buffer.values(position, TableStore.KEY_VALUE_SYSTEM_FIELDS),
        DataFileMeta.UNCOMMITTED,
        firstSequence + position,
        buffer.kindAt(position));
  }

  @Override
  public void flush() throws IOException {
    int buffered = buffer.size();
    if (buffered == 0) {
      return;
    }
    if (producer == ChangelogOptions.Producer.INPUT) {
      // The input as it came, every row with its own kind, before the sort merges keys.
      RollingFileWriter changelog =
          new RollingFileWriter(table, partition, bucket, 0, CHANGELOG_PREFIX);
      for (int i = 0; i < buffered; i++) {
        changelog.write(fileRow(i), firstSequence + i);
      }
      pendingChangelog.addAll(changelog.finish());
    }
    // Positions by key, stably: each key's rows in write order, so the last of them is kept.
    int[] order = buffer.sortedPositions();
    RollingFileWriter writer = new RollingFileWriter(table, partition, bucket, 0);
    for (int i = 0; i < buffered; i++) {
      if (i + 1 < buffered && buffer.sameKey(order[i], order[i + 1])) {
        // The next row of the key is later: it wins, unless its sequence.field values are smaller,
        // and then this row goes on as the key's candidate.
        if (sequenceFields.length > 0
            && buffer.compare(order[i], order[i + 1], sequenceFields) > 0) {
          order[i + 1] = order[i];
        }
        continue;
      }
      writer.write(fileRow(order[i]), firstSequence + order[i]);
    }
    pending.addAll(writer.finish());
    clearBuffer();
    if (running != null && sortedRuns() > options.stopTrigger()) {
      LOG.debug(
          "Write stall in bucket {} of '{}': {} sorted runs", bucket, partition, sortedRuns());
      awaitRunning();
    }
  }

  private int sortedRuns() {
    return UniversalCompaction.sortedRuns(view.files(partition, bucket)).size() + pending.size();
  }

  @Override
  public void onRefresh() throws IOException {
    if (inFlight) {
      // A streaming sink refreshes (next batch) before its last batch is committed (Flink commits
      // when the checkpoint completes): while the view still shows every input of the handed-out
      // compaction, a compaction picked now would redo it and be dropped as a file conflict. Once
      // one input is gone, a commit settled it: ours landed, or another replaced an input and the
      // committer dropped ours.
      refreshesInFlight++;
      if (refreshesInFlight >= IN_FLIGHT_MAX_REFRESHES || !viewHoldsAll(inFlightInputs)) {
        inFlight = false;
        inFlightInputs = java.util.Set.of();
      }
    }
    collectIfDone();
    if (!options.writeOnly() && !inFlight && running == null && finished == null) {
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

  private boolean viewHoldsAll(java.util.Set<String> names) {
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
    if (running != null && sortedRuns() > options.stopTrigger()) {
      awaitRunning();
    }
    collectIfDone();
    List<DataFileMeta> before = finished == null ? List.of() : finished.before();
    List<DataFileMeta> after = finished == null ? List.of() : finished.after();
    CommitMessage message =
        new CommitMessage(
            partition,
            bucket,
            options.bucket(),
            pending,
            before,
            after,
            baseSnapshotId,
            pendingChangelog);
    pendingChangelog.clear();
    if (finished != null) {
      inFlight = true;
      refreshesInFlight = 0;
      java.util.Set<String> inputs = new java.util.HashSet<>();
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
    TableWrite.deleteQuietly(table, partition, bucket, pendingChangelog);
    pendingChangelog.clear();
    clearBuffer();
    pool.unregister(this);
  }

  private void clearBuffer() {
    buffer.clear();
    pool.release(bufferBytes);
    bufferBytes = 0;
  }
}
