package dev.lockstep.engine.operation;

import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.TagManager;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.scan.TableRead;
import dev.lockstep.engine.scan.TableScan;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Rolls a table back to the contents of an earlier snapshot (by id, by time, or a tag's), keeping
 * the history: the rows of that snapshot are written again as new files and committed as one
 * OVERWRITE snapshot of the whole table. The snapshots in between stay (time travel still reads
 * them) and expire as usual.
 *
 * <p>Old files are never put back into the table: expiration relies on a file never being added
 * again once deleted (engine README, "Maintenance" point 3), so a rollback that re-added the old
 * files could have them deleted under a later snapshot. Rewriting costs a full read and write of
 * the restored contents.
 *
 * <p>Concurrency: the rollback replaces the latest snapshot it saw when it started. A commit that
 * lands after that and before the OVERWRITE fails the rollback ({@link CommitFailedException}, its
 * files deleted) instead of being replaced unseen; run it again. Spark's {@code CALL sys.rollback}
 * and {@code lockstep table rollback} both run this class.
 */
public final class Rollback {

  private final TableStore table;

  public Rollback(TableStore table) {
    this.table = table;
  }

  /** What a rollback did, or (dry run) would do. */
  public record Result(
      long previousSnapshotId,
      long restoredSnapshotId,
      long currentSnapshotId,
      long rows,
      boolean dryRun) {}

  /**
   * Snapshot {@code id}.
   *
   * @throws IllegalArgumentException when it does not exist
   */
  public Snapshot snapshot(long id) throws IOException {
    Optional<Snapshot> s = table.snapshotManager().readUncached(id);
    if (s.isEmpty()) {
      throw new IllegalArgumentException(
          "snapshot "
              + id
              + " of "
              + table.fullName()
              + " does not exist (expired or never committed); the snapshots are "
              + range()
              + (new TagManager(table).tags().isEmpty()
                  ? ""
                  : ", and tagged ones can be restored" + " by their tag"));
    }
    return s.get();
  }

  /**
   * The latest snapshot committed at or before {@code time}.
   *
   * @throws IllegalArgumentException when every retained snapshot is younger
   */
  public Snapshot atTime(Instant time) throws IOException {
    OptionalLong earliest = table.snapshotManager().earliestId();
    OptionalLong latest = table.snapshotManager().latestId();
    if (latest.isPresent()) {
      for (long id = latest.getAsLong(); id >= earliest.orElse(1); id--) {
        Optional<Snapshot> s = table.snapshotManager().find(id);
        if (s.isPresent() && s.get().timeMillis() <= time.toEpochMilli()) {
          return s.get();
        }
      }
    }
    throw new IllegalArgumentException(
        "no retained snapshot of "
            + table.fullName()
            + " was committed at or before "
            + time
            + "; the snapshots are "
            + range());
  }

  /**
   * The snapshot tag {@code name} pins.
   *
   * @throws IllegalArgumentException when there is no such tag
   */
  public Snapshot tag(String name) throws IOException {
    TagManager tags = new TagManager(table);
    Optional<TagManager.Tag> tag = tags.find(name);
    if (tag.isEmpty()) {
      throw new IllegalArgumentException(
          "tag '"
              + name
              + "' of "
              + table.fullName()
              + " does not exist; the tags are "
              + tags.tags().stream().map(TagManager.Tag::name).toList());
    }
    return tag.get().snapshot();
  }

  private String range() throws IOException {
    OptionalLong latest = table.snapshotManager().latestId();
    return latest.isEmpty()
        ? "none yet"
        : table.snapshotManager().earliestId().orElse(1) + ".." + latest.getAsLong();
  }

  /** Counts the rows the rollback would restore; writes nothing. */
  public Result dryRun(Snapshot target) throws IOException {
    long previous = table.snapshotManager().latestId().orElse(0);
    long[] rows = {0};
    TableRead read = new TableRead(table);
    for (Split split : new TableScan(table).withSnapshot(target).plan().splits()) {
      read.forEach(split, row -> rows[0]++);
    }
    return new Result(previous, target.id(), previous, rows[0], true);
  }

  /** Rolls back under a fresh commit user ({@code rollback-<uuid>}). */
  public Result run(Snapshot target) throws IOException {
    return run("rollback-" + UUID.randomUUID(), target);
  }

  /** Rolls back; see the class javadoc. */
  public Result run(String commitUser, Snapshot target) throws IOException {
    table.requireWritable();
    long previous = table.snapshotManager().latestId().orElse(0);
    if (previous == 0) {
      throw new IllegalArgumentException(table.fullName() + " has no snapshot to roll back from");
    }
    TableCommit commit = new TableCommit(table, commitUser);
    long rows = 0;
    try (TableWrite write = new TableWrite(table, commitUser)) {
      TableRead read = new TableRead(table);
      for (Split split : new TableScan(table).withSnapshot(target).plan().splits()) {
        for (GenericRow row : read.read(split)) {
          write.write(row);
          rows++;
        }
      }
      List<CommitMessage> messages = write.prepareCommit();
      // An OVERWRITE commits only new files: a compaction the writer ran meanwhile is dropped.
      for (CommitMessage m : messages) {
        for (DataFileMeta f : m.compactAfter()) {
          table
              .fileIO()
              .delete(table.bucketPath(m.partition(), m.bucket()).child(f.fileName()), false);
        }
      }
      long base = messages.stream().mapToLong(CommitMessage::baseSnapshotId).min().orElse(previous);
      long now = table.snapshotManager().latestId().orElse(0);
      if (base != previous || (messages.isEmpty() && now != previous)) {
        commit.abort(1, messages);
        throw new CommitFailedException(
            "snapshot "
                + Math.max(base, now)
                + " of "
                + table.fullName()
                + " was committed while rolling back from snapshot "
                + previous
                + "; nothing was rolled back. Run the rollback again (it replaces the latest"
                + " snapshot it sees)");
      }
      CommitResult result;
      try {
        result = commit.overwrite(1, p -> true, messages);
      } catch (CommitFailedException e) {
        commit.abort(1, messages);
        throw e;
      }
      return new Result(previous, target.id(), result.dataSnapshotId(), rows, false);
    }
  }
}
