package dev.lockstep.engine.table;

import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.operation.TableCompactor;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.scan.StreamTableScan;
import dev.lockstep.engine.scan.TableRead;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A table at {@code <warehouse>/<database>.db/<table>/}: the entry point for writes, commits,
 * compaction and reads. Thread-safe; share one object between the threads of a process, so that
 * they share the caches of snapshots and manifests and one {@code SnapshotCommitter}.
 *
 * <p>The top of the engine's layers (docs/engine.md#design-3-layers): what a table stores and how
 * it commits is its {@link TableStore}, which the scans, writers, commits and maintenance below are
 * built on; this class only adds the entry points.
 */
public final class FileStoreTable extends TableStore {

  /**
   * @param catalogOptions catalog options (lock, commit strategy, store); the schema's options
   *     override them
   */
  public FileStoreTable(
      FileIO fileIO,
      Path path,
      String fullName,
      TableSchema schema,
      Map<String, String> catalogOptions) {
    super(fileIO, path, fullName, schema, catalogOptions, Map.of());
  }

  private FileStoreTable(
      FileIO fileIO,
      Path path,
      String fullName,
      TableSchema schema,
      Map<String, String> catalogOptions,
      Map<String, String> dynamicOptions) {
    super(fileIO, path, fullName, schema, catalogOptions, dynamicOptions);
  }

  /**
   * The same table with {@code options} overriding the table's own, for this object only (nothing
   * is stored): for example {@code write-only=true} in the writers of a table that a dedicated
   * compaction job compacts.
   */
  public FileStoreTable copyWithOptions(Map<String, String> options) {
    Map<String, String> dynamic = new HashMap<>(dynamicOptions());
    dynamic.putAll(options);
    return new FileStoreTable(fileIO(), path(), fullName(), schema(), catalogOptions(), dynamic);
  }

  public FileStoreScan store() {
    return new FileStoreScan(this);
  }

  /** A writer for one commit user; not thread-safe, one per thread. */
  public TableWrite newWrite(String commitUser) {
    requireWritable();
    return new TableWrite(this, commitUser);
  }

  /** A committer for one commit user; not thread-safe, one per thread. */
  public TableCommit newCommit(String commitUser) {
    requireWritable();
    return new TableCommit(this, commitUser);
  }

  /** A dedicated compaction job's worker; not thread-safe. */
  public TableCompactor newCompactor(String commitUser) {
    requireWritable();
    return new TableCompactor(this, commitUser);
  }

  public TableScan newScan() {
    return new TableScan(this);
  }

  /**
   * A stream of the table's changes from {@code scan.mode} (or the position of {@code
   * consumer-id}); see {@link StreamTableScan}.
   */
  public StreamTableScan newStreamScan() {
    return new StreamTableScan(this);
  }

  public TableRead newRead() {
    return new TableRead(this);
  }
}
