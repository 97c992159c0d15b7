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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

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
 *   <li>Compaction (not with {@code write-only=true}) works on the bucket's committed files as the
 *       {@link LiveFileView} sees them, including other writers' files, as they will be once the
 *       compactions this writer handed out and has not seen committed land ({@link
 *       BucketCompactions#plannedFiles}: the view's files, minus those compactions' inputs, plus
 *       their outputs); never on its batches' own flushed files, whose rows get their commit
 *       snapshot only when they land. It starts in the background at a refresh when those files
 *       have at least {@code num-sorted-run.compaction-trigger} sorted runs, one at a time per
 *       bucket.
 *   <li>Write stall: while the sorted runs (of those files, and this batch's) exceed {@code
 *       num-sorted-run.stop-trigger}, a flush waits for the running compaction.
 *   <li>{@link #prepareCommit} hands out the new files and a finished compaction. A streaming sink
 *       refreshes for its next batch before the last one is committed (Flink commits when the
 *       checkpoint completes); the next compaction is picked at that refresh already, from the
 *       files as they will be, and may take the handed-out one's outputs as inputs, so a bucket
 *       compacts in every batch and not every other one. It stays safe: the committer commits a
 *       compaction only when every input is live; if the handed-out one is dropped (another commit
 *       replaced an input) or its batch is never committed, a compaction built on its outputs names
 *       files that are not live and is dropped too, its outputs deleted (or the writer discards it
 *       itself when it learns so before handing it out: {@link BucketCompactions#discardIfStale}).
 *       A handed-out compaction counts as settled once the view shows that it landed or that an
 *       input was replaced, or after {@link BucketCompactions#MAX_REFRESHES} refreshes.
 * </ol>
 */
final class MergeTreeWriter implements BucketWriter {

  /** The name prefix of changelog files in a bucket directory (Paimon's). */
  static final String CHANGELOG_PREFIX = "changelog-";

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

  /** The bucket's running, finished and handed-out compactions. */
  private final BucketCompactions compactions;

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
    this.compactions = new BucketCompactions(table, partition, bucket, view);
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
    stallIfTooManyRuns();
  }

  /**
   * The bucket's sorted runs: those of its files as they will be once the handed-out compactions
   * land, and this batch's flushed files.
   */
  private int sortedRuns() {
    return UniversalCompaction.sortedRuns(compactions.plannedFiles()).size() + pending.size();
  }

  /** Write stall: above {@code num-sorted-run.stop-trigger} runs, waits for the compaction. */
  private void stallIfTooManyRuns() throws IOException {
    if (compactions.isRunning()) {
      int runs = sortedRuns();
      if (runs > options.stopTrigger()) {
        compactions.stall(runs);
      }
    }
  }

  @Override
  public void onRefresh() throws IOException {
    // A streaming sink refreshes (next batch) before its last batch is committed (Flink commits
    // when the checkpoint completes): the next compaction is picked from the files as they will be
    // once the handed-out ones land, so that a bucket can compact in every batch.
    compactions.settle();
    compactions.collectIfDone();
    compactions.discardIfStale();
    if (!options.writeOnly() && compactions.idle() && compactions.mayPlan()) {
      Optional<CompactUnit> unit = picker.pick(compactions.plannedFiles());
      if (unit.isPresent()) {
        CompactUnit u = unit.get();
        compactions.start(executor, () -> CompactTask.run(table, partition, bucket, u));
      }
    }
  }

  @Override
  public void compactNow(boolean full) throws IOException {
    compactions.awaitRunning();
    compactions.discardIfStale();
    if (compactions.hasFinished() || !compactions.mayPlan()) {
      return;
    }
    List<DataFileMeta> files = compactions.plannedFiles();
    Optional<CompactUnit> unit = full ? picker.pickFull(files) : picker.pick(files);
    if (unit.isPresent()) {
      compactions.finishedNow(CompactTask.run(table, partition, bucket, unit.get()));
    }
  }

  @Override
  public CommitMessage prepareCommit(long baseSnapshotId) throws IOException {
    flush();
    stallIfTooManyRuns();
    compactions.collectIfDone();
    compactions.discardIfStale();
    CompactResult compaction = compactions.handOut();
    List<DataFileMeta> before = compaction == null ? List.of() : compaction.before();
    List<DataFileMeta> after = compaction == null ? List.of() : compaction.after();
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
    pending.clear();
    return message;
  }

  @Override
  public void close() {
    compactions.close(false);
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
