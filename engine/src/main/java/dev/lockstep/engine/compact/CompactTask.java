package dev.lockstep.engine.compact;

import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.DeduplicateMerger;
import dev.lockstep.engine.scan.KeyValue;
import dev.lockstep.engine.store.RollingFileWriter;
import dev.lockstep.engine.store.TableStore;
import java.io.IOException;
import java.util.List;

/**
 * Runs one {@link CompactUnit}: merges its committed input files with the deduplicate engine and
 * writes the winners, in key order, to new files at the output level. Each output row carries its
 * own commit snapshot explicitly ({@code _SNAPSHOT}), so the order of rows survives any number of
 * compactions. After a failure no output file is left.
 */
public final class CompactTask {

  private CompactTask() {}

  public static CompactResult run(TableStore table, String partition, int bucket, CompactUnit unit)
      throws IOException {
    RollingFileWriter writer = new RollingFileWriter(table, partition, bucket, unit.outputLevel());
    // Output at the max level means every committed file of the bucket is an input (universal
    // compaction picks all runs then), so no older row of a removed key is left to hide: a winning
    // retraction (-U or -D) is dropped there and kept everywhere else.
    boolean dropDeletes = unit.outputLevel() == table.options().maxLevel();
    try (DeduplicateMerger merger =
        new DeduplicateMerger(table, partition, bucket, unit.inputs())) {
      for (KeyValue kv = merger.next(); kv != null; kv = merger.next()) {
        if (kv.deleted() && dropDeletes) {
          continue;
        }
        writer.write(table.withCommitSnapshot(kv.fileRow(), kv.snapshot()), kv.sequence());
      }
    } catch (IOException | RuntimeException e) {
      writer.abort();
      throw e;
    }
    List<DataFileMeta> after = writer.finish();
    return new CompactResult(partition, bucket, unit.inputs(), after);
  }
}
