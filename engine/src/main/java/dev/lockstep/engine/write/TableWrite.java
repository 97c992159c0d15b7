package dev.lockstep.engine.write;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.LiveFileView;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.RowType;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Writes rows of one table for one commit user, in batches:
 *
 * <ol>
 *   <li>{@link #write} routes each row to its partition and bucket (hash of the primary key, or of
 *       the whole row in append tables, modulo {@code bucket}).
 *   <li>{@link #prepareCommit} flushes and returns the {@link CommitMessage}s of the batch.
 *   <li>The caller commits them with a {@link dev.lockstep.engine.commit.TableCommit} before the next
 *       batch. The first call of the next batch moves the writer's view of the table to the latest
 *       snapshot and starts compactions from there; that is how a writer learns of other writers'
 *       files and of its own compactions that the committer dropped after a conflict.
 * </ol>
 *
 * <p>Not thread-safe: one per thread. Compactions run on {@code compaction.max.thread} background
 * threads owned by this object. {@link #close()} deletes files never handed out.
 */
public final class TableWrite implements Closeable {

  private final FileStoreTable table;
  private final String commitUser;
  private final RowType rowType;
  private final int[] keyIndexes;
  private final int[] partitionIndexes;
  private final LiveFileView view;
  private final Map<Map.Entry<String, Integer>, BucketWriter> writers = new LinkedHashMap<>();
  private ExecutorService executor;
  private boolean needsRefresh = true;
  private long batchBase;

  public TableWrite(FileStoreTable table, String commitUser) {
    this.table = table;
    this.commitUser = Objects.requireNonNull(commitUser, "commitUser");
    this.rowType = table.schema().rowType();
    this.keyIndexes = table.schema().primaryKeyIndexes();
    this.partitionIndexes = table.schema().partitionIndexes();
    this.view = new LiveFileView(table);
  }

  public String commitUser() {
    return commitUser;
  }

  /**
   * Buffers one row.
   *
   * @throws IllegalArgumentException when the row does not fit the schema, naming the column
   */
  public void write(GenericRow row) throws IOException {
    if (row.size() != rowType.size()) {
      throw new IllegalArgumentException("A row of " + table.fullName() + " has " + rowType.size()
          + " values " + rowType.names() + ", got " + row.size() + ": " + row);
    }
    for (int i = 0; i < rowType.size(); i++) {
      rowType.field(i).type().validate(rowType.field(i).name(), row.get(i));
    }
    route(row, false);
  }

  /**
   * Deletes the key of {@code row}, a full row of a primary-key table (it is checked like a write;
   * nullable columns other than the key may be null). Within a batch the later write or delete of
   * a key wins; across commits the later commit wins.
   *
   * @throws IllegalArgumentException in an append table, or when a key column does not fit
   */
  public void delete(GenericRow row) throws IOException {
    if (!table.primaryKeyTable()) {
      throw new IllegalArgumentException(table.fullName() + " is an append table; only"
          + " primary-key tables can delete rows.");
    }
    if (row.size() != rowType.size()) {
      throw new IllegalArgumentException("A row of " + table.fullName() + " has " + rowType.size()
          + " values " + rowType.names() + ", got " + row.size() + ": " + row);
    }
    for (int i = 0; i < rowType.size(); i++) {
      rowType.field(i).type().validate(rowType.field(i).name(), row.get(i));
    }
    route(row, true);
  }

  private void route(GenericRow row, boolean delete) throws IOException {
    refreshIfNeeded();
    String partition = table.partitionPath().toPath(row.project(partitionIndexes));
    GenericRow bucketKey = table.primaryKeyTable() ? row.project(keyIndexes) : row;
    int bucket = Math.floorMod(RowComparator.stableHash(bucketKey), table.options().bucket());
    writer(partition, bucket).write(row, delete);
  }

  private BucketWriter writer(String partition, int bucket) throws IOException {
    Map.Entry<String, Integer> key = Map.entry(partition, bucket);
    BucketWriter writer = writers.get(key);
    if (writer == null) {
      writer = table.primaryKeyTable()
          ? new MergeTreeWriter(table, partition, bucket, view, executor())
          : new AppendBucketWriter(table, partition, bucket);
      writers.put(key, writer);
      writer.onRefresh();
    }
    return writer;
  }

  private void refreshIfNeeded() throws IOException {
    if (needsRefresh) {
      needsRefresh = false;
      if (table.primaryKeyTable()) {
        view.refresh();
        batchBase = view.snapshotId();
      } else {
        // Append buckets never compact: they only need the base snapshot (for overwrites).
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
    for (BucketWriter writer : writers.values()) {
      writer.flush();
    }
  }

  /**
   * Compacts every bucket of a primary-key table that has committed files, in this thread; the
   * results go into the next {@link #prepareCommit}. With {@code full}, each bucket becomes one run
   * at the max level. A no-op in append tables.
   */
  public void compact(boolean full) throws IOException {
    refreshIfNeeded();
    if (!table.primaryKeyTable()) {
      return;
    }
    for (Map.Entry<String, Integer> bucket : view.buckets()) {
      writer(bucket.getKey(), bucket.getValue()).compactNow(full);
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
    for (BucketWriter writer : writers.values()) {
      writer.flush();
    }
    List<CommitMessage> messages = new ArrayList<>();
    for (BucketWriter writer : writers.values()) {
      CommitMessage message = writer.prepareCommit(batchBase);
      if (!message.isEmpty()) {
        messages.add(message);
      }
    }
    needsRefresh = true;
    return messages;
  }

  private ExecutorService executor() {
    if (executor == null) {
      ThreadFactory factory = runnable -> {
        Thread thread = new Thread(runnable, "lockstep-compaction-" + table.fullName());
        thread.setDaemon(true);
        return thread;
      };
      executor = Executors.newFixedThreadPool(table.options().compactionMaxThreads(), factory);
    }
    return executor;
  }

  static void deleteQuietly(FileStoreTable table, String partition, int bucket,
      List<DataFileMeta> files) {
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
