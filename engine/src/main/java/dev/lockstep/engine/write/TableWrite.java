package dev.lockstep.engine.write;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.index.BucketAssigner;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.LiveFileView;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.DataTypeRoot;
import dev.lockstep.engine.types.RowType;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes rows of one table for one commit user, in batches:
 *
 * <ol>
 *   <li>{@link #write} routes each row to its partition and bucket (hash of the primary key, or of
 *       the whole row in append tables, modulo {@code bucket}).
 *   <li>{@link #prepareCommit} flushes and returns the {@link CommitMessage}s of the batch.
 *   <li>The caller commits them with a {@link dev.lockstep.engine.commit.TableCommit} before the
 *       next batch. The first call of the next batch moves the writer's view of the table to the
 *       latest snapshot and starts compactions from there; that is how a writer learns of other
 *       writers' files and of its own compactions that the committer dropped after a conflict.
 * </ol>
 *
 * <p>{@code write-buffer-size} bounds the buffers of all primary-key buckets of one {@code
 * TableWrite} together: a write that reaches it flushes the largest buffer first.
 *
 * <p>Not thread-safe: one per thread. Compactions run on {@code compaction.max.thread} background
 * threads owned by this object; flushes of different buckets run on up to {@code
 * write.flush-threads} threads at once (this one included). {@link #close()} deletes files never
 * handed out.
 */
public final class TableWrite implements Closeable {

  private final TableStore table;
  private final String commitUser;
  private final RowType rowType;
  private final int[] keyIndexes;
  private final int[] partitionIndexes;
  private final boolean primaryKey;
  private final int buckets;

  /** Each column's type and name, for {@link DataType#validate}. */
  private final DataType[] columnTypes;

  private final String[] columnNames;

  /**
   * Per column, the one class whose non-null values need no check beyond their class ({@code null}
   * for DECIMAL, CHAR, VARCHAR and TIMESTAMP_LTZ, whose values are always checked further). Every
   * other value goes through {@link DataType#validate}.
   */
  private final Class<?>[] plainClasses;

  private final boolean[] nullable;
  private final LiveFileView view;
  private final Map<BucketId, BucketWriter> writers = new LinkedHashMap<>();

  /** The writers of the last partition a row went to, by bucket: most rows skip the map. */
  private String lastPartition;

  private BucketWriter[] lastPartitionWriters;
  private ExecutorService executor;
  private ExecutorService flushPool;
  private final int flushThreads;
  private boolean needsRefresh = true;

  /** Dynamic buckets: routes keys by the committed index; {@code null} for fixed buckets. */
  private final BucketAssigner assigner;

  private long batchBase;

  /** {@code write-buffer-size}: one bound for the buffers of all primary-key buckets. */
  private final WriteBufferPool bufferPool;

  public TableWrite(TableStore table, String commitUser) {
    this.table = table;
    this.commitUser = Objects.requireNonNull(commitUser, "commitUser");
    this.rowType = table.schema().rowType();
    this.keyIndexes = table.schema().primaryKeyIndexes();
    this.partitionIndexes = table.schema().partitionIndexes();
    this.primaryKey = table.primaryKeyTable();
    this.buckets = table.options().bucket();
    int columns = rowType.size();
    this.columnTypes = new DataType[columns];
    this.columnNames = new String[columns];
    this.plainClasses = new Class<?>[columns];
    this.nullable = new boolean[columns];
    for (int i = 0; i < columns; i++) {
      DataType type = rowType.field(i).type();
      columnTypes[i] = type;
      columnNames[i] = rowType.field(i).name();
      nullable[i] = type.nullable();
      plainClasses[i] = checkedBeyondClass(type.root()) ? null : type.root().javaClass();
    }
    this.view = new LiveFileView(table);
    this.flushThreads = table.options().writeFlushThreads();
    this.assigner = table.options().dynamicBucket() ? new BucketAssigner(table) : null;
    this.bufferPool = new WriteBufferPool(table.options().writeBufferBytes());
  }

  /** Whether {@link DataType#validate} checks a non-null value of the kind beyond its class. */
  private static boolean checkedBeyondClass(DataTypeRoot root) {
    return switch (root) {
      case DECIMAL, CHAR, VARCHAR, TIMESTAMP_LTZ -> true;
      default -> false;
    };
  }

  /** The write buffers' memory, for tests. */
  WriteBufferPool bufferPool() {
    return bufferPool;
  }

  public String commitUser() {
    return commitUser;
  }

  /**
   * Buffers one row as an insert ({@code +I}).
   *
   * @throws IllegalArgumentException when the row does not fit the schema, naming the column
   */
  public void write(GenericRow row) throws IOException {
    write(RowKind.INSERT, row);
  }

  /**
   * Deletes the key of {@code row}, a full row of a primary-key table: {@code write(RowKind.DELETE,
   * row)}.
   *
   * @throws IllegalArgumentException in an append table, or when a key column does not fit
   */
  public void delete(GenericRow row) throws IOException {
    write(RowKind.DELETE, row);
  }

  /**
   * Buffers one row of kind {@code kind}, checked like an insert (in a retraction, nullable columns
   * other than the key may be null; with {@code sequence.field}, its columns order the retraction
   * too, so give them).
   *
   * <ul>
   *   <li>Primary-key table: per key, the row with the greatest (sequence-field values, commit,
   *       order of writes) wins; {@code +I} and {@code +U} make it the key's row, {@code -U} and
   *       {@code -D} remove the key (a key that does not exist stays absent: deleting it is a
   *       no-op). Within a batch the later write of a key wins; across commits the later commit.
   *   <li>Append table: {@code +I} and {@code +U} append the row; {@code -U} and {@code -D} are
   *       refused (there is no key to remove), before anything is buffered.
   * </ul>
   *
   * @throws IllegalArgumentException a retraction in an append table, or a row that does not fit
   *     the schema (naming the column)
   */
  public void write(RowKind kind, GenericRow row) throws IOException {
    Objects.requireNonNull(kind, "kind");
    if (kind.isRetract() && !primaryKey) {
      throw new IllegalArgumentException(
          table.fullName()
              + " is an append table: it keeps every"
              + " row and has no key to remove, so it refuses "
              + kind
              + " rows; write only +I and +U"
              + " to it, or use a primary-key table for changes.");
    }
    if (row.size() != rowType.size()) {
      throw new IllegalArgumentException(
          "A row of "
              + table.fullName()
              + " has "
              + rowType.size()
              + " values "
              + rowType.names()
              + ", got "
              + row.size()
              + ": "
              + row);
    }
    // The checks of DataType.validate, per column kind: a null in a nullable column, or a value of
    // exactly its column's class where the kind checks nothing more, passes them without the call;
    // every other value (a subclass too) goes through it.
    for (int i = 0; i < columnTypes.length; i++) {
      Object value = row.get(i);
      if (value == null ? !nullable[i] : value.getClass() != plainClasses[i]) {
        columnTypes[i].validate(columnNames[i], value);
      }
    }
    route(row, kind);
  }

  private void route(GenericRow row, RowKind kind) throws IOException {
    refreshIfNeeded();
    String partition =
        partitionIndexes.length == 0
            ? ""
            : table.partitionPath().toPath(row.project(partitionIndexes));
    int hash =
        primaryKey ? RowComparator.stableHash(row, keyIndexes) : RowComparator.stableHash(row);
    int bucket = assigner != null ? assigner.assign(partition, hash) : Math.floorMod(hash, buckets);
    if (!partition.equals(lastPartition)) {
      lastPartition = partition;
      lastPartitionWriters = new BucketWriter[Math.max(1, buckets)];
    }
    if (bucket >= lastPartitionWriters.length) {
      lastPartitionWriters =
          java.util.Arrays.copyOf(
              lastPartitionWriters, Math.max(bucket + 1, lastPartitionWriters.length * 2));
    }
    BucketWriter writer = lastPartitionWriters[bucket];
    if (writer == null) {
      writer = writer(partition, bucket);
      lastPartitionWriters[bucket] = writer;
    }
    writer.write(row, kind);
  }

  private BucketWriter writer(String partition, int bucket) throws IOException {
    BucketId key = new BucketId(partition, bucket);
    BucketWriter writer = writers.get(key);
    if (writer == null) {
      if (table.primaryKeyTable()) {
        MergeTreeWriter mergeTree =
            new MergeTreeWriter(table, partition, bucket, view, executor(), bufferPool);
        bufferPool.register(mergeTree);
        writer = mergeTree;
      } else {
        writer =
            new AppendBucketWriter(
                table, partition, bucket, view, table.options().writeOnly() ? null : executor());
      }
      writers.put(key, writer);
      writer.onRefresh();
    }
    return writer;
  }

  private void refreshIfNeeded() throws IOException {
    if (needsRefresh) {
      needsRefresh = false;
      if (table.primaryKeyTable() || !table.options().writeOnly()) {
        view.refresh();
        batchBase = view.snapshotId();
        if (assigner != null) {
          assigner.refresh(batchBase == 0 ? null : table.snapshotManager().get(batchBase));
        }
      } else {
        // Write-only append buckets never compact: they only need the base snapshot (for
        // overwrites), not the live files.
        batchBase = table.snapshotManager().latestId().orElse(0);
      }
      for (BucketWriter writer : writers.values()) {
        writer.onRefresh();
      }
    }
  }

  /** Writes every buffer to new level-0 files now (they are committed with the batch). */
  public void flush() throws IOException {
    refreshIfNeeded();
    flushAll();
  }

  /**
   * Flushes every bucket: sorting, encoding and compressing a buffer is most of a batch's work, and
   * buckets are independent, so up to {@code write.flush-threads} of them flush at once (this
   * thread and background threads, each taking the next bucket). Every bucket is attempted; a
   * bucket whose flush failed keeps its batch, and the first failure is thrown (others suppressed).
   */
  private void flushAll() throws IOException {
    List<BucketWriter> all = new ArrayList<>(writers.values());
    int threads = Math.min(flushThreads, all.size());
    if (threads <= 1) {
      for (BucketWriter writer : all) {
        writer.flush();
      }
      return;
    }
    AtomicInteger next = new AtomicInteger();
    Throwable[] failures = new Throwable[all.size()];
    Runnable flushing =
        () -> {
          for (int i = next.getAndIncrement(); i < all.size(); i = next.getAndIncrement()) {
            try {
              all.get(i).flush();
            } catch (Throwable t) {
              failures[i] = t;
            }
          }
        };
    List<Future<?>> helpers = new ArrayList<>();
    for (int t = 1; t < threads; t++) {
      helpers.add(flushPool().submit(flushing));
    }
    flushing.run();
    boolean interrupted = false;
    for (Future<?> helper : helpers) {
      while (true) {
        try {
          helper.get();
          break;
        } catch (InterruptedException e) {
          // A bucket's flush is not abandoned halfway: wait for it, then report the interrupt.
          interrupted = true;
        } catch (ExecutionException e) {
          throw new IllegalStateException("A flush task failed outside a flush", e.getCause());
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Throwable first = null;
    for (Throwable t : failures) {
      if (t == null) {
        continue;
      }
      if (first == null) {
        first = t;
      } else {
        first.addSuppressed(t);
      }
    }
    if (first instanceof IOException e) {
      throw e;
    } else if (first instanceof RuntimeException e) {
      throw e;
    } else if (first instanceof Error e) {
      throw e;
    } else if (interrupted) {
      throw new InterruptedIOException("Interrupted while flushing " + table.fullName());
    }
  }

  /**
   * Compacts every bucket that has committed files, in this thread (write-only writers too); the
   * results go into the next {@link #prepareCommit}. Primary-key tables: the universal pick, or
   * with {@code full} each bucket into one run at the max level. Append tables: runs of small files
   * ({@code compact.AppendCompaction}), or with {@code full} everything from the first small file
   * of each bucket on.
   */
  public void compact(boolean full) throws IOException {
    if (!table.primaryKeyTable() && table.options().writeOnly()) {
      // A write-only append writer does not follow the live files otherwise; refreshed before the
      // bucket writers learn of the new batch, so that they see whether a compaction they handed
      // out has settled.
      view.refresh();
    }
    refreshIfNeeded();
    for (BucketId bucket : view.buckets()) {
      writer(bucket.partition(), bucket.bucket()).compactNow(full);
    }
  }

  /**
   * Ends the batch: flushes and returns one message per bucket that changed. The files are the
   * caller's to commit; the writer no longer tracks them.
   *
   * <ul>
   *   <li>After success: the buffers are empty; the next call of any method starts a new batch from
   *       the latest snapshot.
   *   <li>After a failure (a flush failed): no message was handed out and every bucket keeps its
   *       batch; calling again retries the flush.
   * </ul>
   */
  public List<CommitMessage> prepareCommit() throws IOException {
    refreshIfNeeded();
    // Flush everything first: a failed flush then leaves every bucket's batch with its writer.
    flushAll();
    List<CommitMessage> messages = new ArrayList<>();
    for (BucketWriter writer : writers.values()) {
      CommitMessage message = writer.prepareCommit(batchBase);
      if (assigner != null) {
        message =
            message.withIndexHashes(assigner.newHashes(message.partition(), message.bucket()));
      }
      if (!message.isEmpty()) {
        messages.add(message);
      }
    }
    needsRefresh = true;
    return messages;
  }

  private ExecutorService flushPool() {
    if (flushPool == null) {
      ThreadFactory factory =
          runnable -> {
            Thread thread = new Thread(runnable, "lockstep-flush-" + table.fullName());
            thread.setDaemon(true);
            return thread;
          };
      flushPool = Executors.newFixedThreadPool(flushThreads - 1, factory);
    }
    return flushPool;
  }

  private ExecutorService executor() {
    if (executor == null) {
      ThreadFactory factory =
          runnable -> {
            Thread thread = new Thread(runnable, "lockstep-compaction-" + table.fullName());
            thread.setDaemon(true);
            return thread;
          };
      executor = Executors.newFixedThreadPool(table.options().compactionMaxThreads(), factory);
    }
    return executor;
  }

  static void deleteQuietly(
      TableStore table, String partition, int bucket, List<DataFileMeta> files) {
    for (DataFileMeta file : files) {
      try {
        table.fileIO().delete(table.bucketPath(partition, bucket).child(file.fileName()), false);
      } catch (IOException ignored) {
        // Unreferenced; orphan-file removal collects it.
      }
    }
  }

  /** Waits for running compactions, then deletes every file not handed out. */
  @Override
  public void close() {
    for (BucketWriter writer : writers.values()) {
      writer.close();
    }
    writers.clear();
    lastPartition = null;
    lastPartitionWriters = null;
    if (flushPool != null) {
      // Idle between flushes: flushAll waits for its tasks before returning.
      flushPool.shutdown();
      flushPool = null;
    }
    if (executor != null) {
      executor.shutdownNow();
      try {
        executor.awaitTermination(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
