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
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
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
    if (running != null && sortedRuns() > options.stopTrigger()) {
      LOG.debug(
          "Write stall in bucket {} of '{}': {} sorted runs", bucket, partition, sortedRuns());
      awaitRunning();
    }
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
    Arrays.fill(buffer, 0, buffered, null);
    buffered = 0;
    pool.release(bufferBytes);
    bufferBytes = 0;
  }
}
