package dev.lockstep.engine.write;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One bucket of an append table: rows stream straight into level-0 files that roll at
 * {@code target-file-size}. Appended files are never merged (there are no keys).
 */
final class AppendBucketWriter implements BucketWriter {

  private final FileStoreTable table;
  private final String partition;
  private final int bucket;
  private final List<DataFileMeta> pending = new ArrayList<>();
  private RollingFileWriter writer;
  private long sequence;

  AppendBucketWriter(FileStoreTable table, String partition, int bucket) {
    this.table = table;
    this.partition = partition;
    this.bucket = bucket;
  }

  @Override
  public void write(GenericRow row, boolean delete) throws IOException {
    if (writer == null) {
      writer = new RollingFileWriter(table, partition, bucket, 0);
    }
    writer.write(row, null, sequence++);
  }

  @Override
  public void flush() throws IOException {
    if (writer != null) {
      pending.addAll(writer.finish());
      writer = null;
    }
  }

  @Override
  public void onRefresh() {}

  @Override
  public void compactNow(boolean full) {}

  @Override
  public CommitMessage prepareCommit(long baseSnapshotId) throws IOException {
    flush();
    CommitMessage message = new CommitMessage(partition, bucket, table.options().bucket(),
        pending, List.of(), List.of(), baseSnapshotId);
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
