package dev.lockstep.engine.write;

import dev.lockstep.engine.compact.CompactResult;
import dev.lockstep.engine.compact.CompactTask;
import dev.lockstep.engine.compact.CompactUnit;
import dev.lockstep.engine.compact.UniversalCompaction;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.LiveFileView;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.engine.store.CoreOptions;
import dev.lockstep.engine.store.RollingFileWriter;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.types.DataTypeRoot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bucket of a primary-key table, an LSM tree.
 *
 * <ol>
 *   <li>Rows go to an in-memory buffer in write order, as the caller wrote them (their sequence
 *       number is their position, their kind one byte beside them). {@code write-buffer-size}
 *       bounds the estimated heap of the buffers of all buckets of the {@link TableWrite} together
 *       ({@link WriteBufferPool}): when a write reaches it, the largest buffer, whichever bucket it
 *       is, is sorted by key (stable, so the later write of a key wins and the earlier ones are
 *       dropped; with {@code sequence.field}, the row with the greatest sequence-field values wins,
 *       the later one of equals) and flushed to a new level-0 file (one sorted run). Sorting once
 *       per flush is much cheaper than keeping a sorted map per row; the price is that overwritten
 *       rows count against the buffer until the flush. Rows of flushed files carry {@code _SNAPSHOT
 *       = -1} (the commit decides it) and a sequence number that grows across the writer's batch.
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
   * order: the row at position {@code i} has sequence number {@code firstSequence + i} and the kind
   * {@code kinds[i]}. Data-file rows are built only while a flush writes them.
   */
  private GenericRow[] buffer = new GenericRow[1024];

  private byte[] kinds = new byte[1024];
  private int buffered;
  private long firstSequence;

  /** The memory bound shared by the buckets of this writer's {@link TableWrite}. */
  private final WriteBufferPool pool;

  private final Comparator<GenericRow> byKey;

  /** The first key column is INT (never null in a key): the buffer sorts on packed longs. */
  private final boolean intLeadingKey;

  /** The first key column is BIGINT: the buffer sorts on (key, position) primitive arrays. */
  private final boolean longLeadingKey;

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
    int[] keys = keyIndexes;
    this.byKey = (a, b) -> RowComparator.compare(a, b, keys);
    this.intLeadingKey =
        table.schema().rowType().field(keyIndexes[0]).type().root() == DataTypeRoot.INT;
    this.longLeadingKey =
        table.schema().rowType().field(keyIndexes[0]).type().root() == DataTypeRoot.BIGINT;
  }

  @Override
  public void write(GenericRow row, RowKind kind) throws IOException {
    if (buffered == buffer.length) {
      buffer = Arrays.copyOf(buffer, buffer.length * 2);
      kinds = Arrays.copyOf(kinds, kinds.length * 2);
    }
    if (buffered == 0) {
      firstSequence = sequence;
    }
    sequence++;
    buffer[buffered] = row;
    kinds[buffered++] = kind.toByteValue();
    // The row, its values and its slots in the two arrays.
    long bytes = row.heapBytes() + SLOT_BYTES;
    bufferBytes += bytes;
    pool.add(bytes);
  }

  /** Bytes of a buffered row's slots: a reference in {@code buffer}, a byte in {@code kinds}. */
  static final int SLOT_BYTES = 5;

  /** The estimated memory of this bucket's buffer. */
  long bufferedBytes() {
    return bufferBytes;
  }

  /** The data-file row of the buffered row at {@code position}. */
  private GenericRow fileRow(int position) {
    return table.keyValueFileRow(
        buffer[position],
        DataFileMeta.UNCOMMITTED,
        firstSequence + position,
        RowKind.fromByteValue(kinds[position]));
  }

  @Override
  public void flush() throws IOException {
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
    int[] order = new int[buffered];
    long[] leading = sortBuffer(order);
    // With a single INT or BIGINT key column, ties show in the sorted key values alone.
    boolean packedKey = leading != null && keyIndexes.length == 1;
    RollingFileWriter writer = new RollingFileWriter(table, partition, bucket, 0);
    for (int i = 0; i < buffered; i++) {
      if (i + 1 < buffered
          && (packedKey
              ? leading[i] == leading[i + 1]
              : byKey.compare(buffer[order[i]], buffer[order[i + 1]]) == 0)) {
        // The next row of the key is later: it wins, unless its sequence.field values are smaller,
        // and then this row goes on as the key's candidate.
        if (sequenceFields.length > 0
            && RowComparator.compare(buffer[order[i]], buffer[order[i + 1]], sequenceFields) > 0) {
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
   * Sorts the buffer's positions by key into {@code order}, stably: each key's rows stay in write
   * order, so the last of them is the one to keep. The rows themselves stay where they are (a row's
   * position is its sequence number and the index of its kind). With an INT first key column, each
   * row's (key, position) is packed into one long and the longs are sorted as primitives (no
   * comparator calls, no pointer chasing); positions whose first column ties are then ordered by
   * the remaining key columns, stably. A BIGINT first key column is sorted the same way on parallel
   * (key, position) arrays ({@link LongKeySort}); other keys with a stable merge sort of positions
   * by the key comparator ({@link PositionSort}).
   *
   * @return the first key column's values in sorted order, or {@code null} when the comparator
   *     sorted
   */
  private long[] sortBuffer(int[] order) {
    PositionSort.PositionComparator byKeyAt = (a, b) -> byKey.compare(buffer[a], buffer[b]);
    int first = keyIndexes[0];
    long[] leading;
    if (longLeadingKey) {
      leading = new long[buffered];
      for (int i = 0; i < buffered; i++) {
        leading[i] = (Long) buffer[i].get(first);
      }
      int[] sorted = LongKeySort.stableOrder(leading);
      System.arraycopy(sorted, 0, order, 0, buffered);
    } else if (intLeadingKey) {
      leading = new long[buffered];
      for (int i = 0; i < buffered; i++) {
        leading[i] = ((long) (Integer) buffer[i].get(first) << 32) | i;
      }
      Arrays.sort(leading);
      for (int i = 0; i < buffered; i++) {
        order[i] = (int) leading[i];
        leading[i] >>= 32;
      }
    } else {
      for (int i = 0; i < buffered; i++) {
        order[i] = i;
      }
      PositionSort.sort(order, 0, buffered, byKeyAt);
      return null;
    }
    if (keyIndexes.length > 1) {
      for (int from = 0; from < buffered; ) {
        int to = from + 1;
        while (to < buffered && leading[to] == leading[from]) {
          to++;
        }
        if (to - from > 1) {
          PositionSort.sort(order, from, to, byKeyAt);
        }
        from = to;
      }
    }
    return leading;
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
    compactions.close();
    TableWrite.deleteQuietly(table, partition, bucket, pending);
    pending.clear();
    TableWrite.deleteQuietly(table, partition, bucket, pendingChangelog);
    pendingChangelog.clear();
    clearBuffer();
    pool.unregister(this);
  }

  private void clearBuffer() {
    Arrays.fill(buffer, 0, buffered, null);
    buffered = 0;
    pool.release(bufferBytes);
    bufferBytes = 0;
  }
}
