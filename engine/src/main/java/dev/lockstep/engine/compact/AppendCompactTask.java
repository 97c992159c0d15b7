package dev.lockstep.engine.compact;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.store.RollingFileWriter;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Rewrites runs of an append bucket's committed files ({@link AppendCompaction}): each run's rows,
 * in the run's row order, into new files rolled at {@code target-file-size}, in the table's current
 * {@code file.format} (inputs of either format). The outputs carry the run's first file's commit
 * snapshot and sequence numbers counted from its first one, so they take the run's place in the
 * bucket's row order. After a failure no output file is left.
 */
public final class AppendCompactTask {

  private AppendCompactTask() {}

  /**
   * Rows between two looks at the thread's interrupt (a power of two): a writer that closes
   * abandons its running compaction, which then stops within this many rows, not at the end of its
   * input file.
   */
  static final int INTERRUPT_CHECK_ROWS = 4096;

  public static CompactResult run(
      TableStore table, String partition, int bucket, List<List<DataFileMeta>> runs)
      throws IOException {
    List<DataFileMeta> before = new ArrayList<>();
    List<DataFileMeta> after = new ArrayList<>();
    try {
      for (List<DataFileMeta> run : runs) {
        after.addAll(rewrite(table, partition, bucket, run));
        before.addAll(run);
      }
    } catch (IOException | RuntimeException e) {
      deleteQuietly(table, partition, bucket, after);
      throw e;
    }
    return new CompactResult(partition, bucket, before, after);
  }

  private static List<DataFileMeta> rewrite(
      TableStore table, String partition, int bucket, List<DataFileMeta> run) throws IOException {
    DataFileMeta first = run.get(0);
    long sequence = first.minSequence();
    RollingFileWriter writer = new RollingFileWriter(table, partition, bucket, 0);
    try {
      for (DataFileMeta file : run) {
        if (Thread.currentThread().isInterrupted()) {
          throw new java.io.InterruptedIOException("Interrupted while compacting");
        }
        try (FormatReader reader =
            table
                .format()
                .createReader(
                    table.fileIO(),
                    table.bucketPath(partition, bucket).child(file.fileName()),
                    table.dataFileRowType())) {
          for (GenericRow row = reader.next(); row != null; row = reader.next()) {
            writer.write(row, sequence++);
            if ((sequence & (INTERRUPT_CHECK_ROWS - 1)) == 0
                && Thread.currentThread().isInterrupted()) {
              throw new java.io.InterruptedIOException("Interrupted while compacting");
            }
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      writer.abort();
      throw e;
    }
    List<DataFileMeta> outputs = new ArrayList<>();
    for (DataFileMeta out : writer.finish()) {
      outputs.add(out.withCommitSnapshot(first.commitSnapshot()));
    }
    return outputs;
  }

  private static void deleteQuietly(
      TableStore table, String partition, int bucket, List<DataFileMeta> files) {
    for (DataFileMeta f : files) {
      try {
        table.fileIO().delete(table.bucketPath(partition, bucket).child(f.fileName()), false);
      } catch (IOException ignored) {
        // Unreferenced; orphan-file removal collects it.
      }
    }
  }
}
