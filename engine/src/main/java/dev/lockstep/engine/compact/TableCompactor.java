package dev.lockstep.engine.compact;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.LiveFileView;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A dedicated compaction job for a table whose writers run with {@code write-only=true}: it is then
 * the only one that deletes files, so no commit ever meets a file conflict.
 *
 * <p>Each {@link #compactOnce} moves its view to the latest snapshot, compacts every bucket that
 * needs it (universal pick, or everything with {@code full}), and commits the result as one COMPACT
 * snapshot under its own commit user. Identifiers start at the wall clock in microseconds and grow
 * by one per commit, so that they increase across restarts. Not thread-safe; run it in a loop.
 */
public final class TableCompactor {

  private final FileStoreTable table;
  private final TableCommit commit;
  private final LiveFileView view;
  private final UniversalCompaction picker;
  private long nextIdentifier = System.currentTimeMillis() * 1000;

  public TableCompactor(FileStoreTable table, String commitUser) {
    if (!table.primaryKeyTable()) {
      throw new IllegalArgumentException(table.fullName() + " is an append table; only primary-key"
          + " tables are compacted.");
    }
    this.table = table;
    this.commit = table.newCommit(commitUser);
    this.view = new LiveFileView(table);
    this.picker = new UniversalCompaction(table.options().compactionTrigger(),
        table.options().maxLevel());
  }

  /** File conflicts met so far; zero when every writer is write-only. */
  public long fileConflicts() {
    return commit.fileConflicts();
  }

  /**
   * One round. Returns the commit's result, or empty when nothing needed compaction.
   *
   * @throws dev.lockstep.commit.CommitStateUnknownException when the commit's fate is unknown
   */
  public Optional<CommitResult> compactOnce(boolean full) throws IOException {
    view.refresh();
    List<CommitMessage> messages = new ArrayList<>();
    try {
      for (Map.Entry<String, Integer> bucket : view.buckets()) {
        List<DataFileMeta> files = view.files(bucket.getKey(), bucket.getValue());
        Optional<CompactUnit> unit = full ? picker.pickFull(files) : picker.pick(files);
        if (unit.isPresent()) {
          CompactResult r = CompactTask.run(table, bucket.getKey(), bucket.getValue(), unit.get());
          messages.add(new CommitMessage(r.partition(), r.bucket(), table.options().bucket(),
              List.of(), r.before(), r.after(), view.snapshotId()));
        }
      }
    } catch (IOException | RuntimeException e) {
      for (CommitMessage m : messages) {
        deleteQuietly(m);
      }
      throw e;
    }
    if (messages.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(commit.commit(nextIdentifier++, messages));
  }

  private void deleteQuietly(CommitMessage m) {
    for (DataFileMeta f : m.compactAfter()) {
      try {
        table.fileIO().delete(table.bucketPath(m.partition(), m.bucket()).child(f.fileName()),
            false);
      } catch (IOException ignored) {
        // Unreferenced; orphan-file removal collects it.
      }
    }
  }
}
