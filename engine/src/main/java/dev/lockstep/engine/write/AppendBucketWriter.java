package dev.lockstep.engine.write;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.store.RollingFileWriter;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One bucket of an append table: rows stream straight into level-0 files that roll at {@code
 * target-file-size}. Appended files are never merged (there are no keys).
 */
final class AppendBucketWriter implements BucketWriter {

  private final TableStore table;
  private final String partition;
  private final int bucket;
  private final List<DataFileMeta> pending = new ArrayList<>();
  private RollingFileWriter writer;
  private long sequence;

  /** Rows stream into files, so a failed file write loses the batch: the writer then refuses. */
  private IOException failure;

  AppendBucketWriter(TableStore table, String partition, int bucket) {
    this.table = table;
    this.partition = partition;
    this.bucket = bucket;
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
  public void onRefresh() {}

  @Override
  public void compactNow(boolean full) {}

  @Override
  public CommitMessage prepareCommit(long baseSnapshotId) throws IOException {
    flush();
    checkNotFailed();
    CommitMessage message =
        new CommitMessage(
            partition,
            bucket,
            table.options().bucket(),
            pending,
            List.of(),
            List.of(),
            baseSnapshotId);
    pending.clear();
    return message;
  }

  @Override
  public void close() {
    if (writer != null) {
      writer.abort();
      writer = null;
    }
    TableWrite.deleteQuietly(table, partition, bucket, pending);
    pending.clear();
  }
}
