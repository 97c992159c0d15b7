package dev.lockstep.engine.operation;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Overwrites a table's partitions with new rows, as one OVERWRITE snapshot (see {@link
 * dev.lockstep.engine.commit.TableCommit#overwrite}).
 *
 * <ul>
 *   <li><b>Dynamic</b> (no partition given): the partitions the rows fall into are replaced; the
 *       others stay. With no rows, nothing is replaced.
 *   <li><b>Static</b> (a partition given, e.g. {@code dt=2024-05-01}): every partition matching it
 *       is replaced, even by no rows (that empties it); a row outside it is refused before anything
 *       is written. In an unpartitioned table, give an empty map to replace the whole table.
 * </ul>
 *
 * A concurrent APPEND or OVERWRITE into the replaced partitions after the overwrite started makes
 * it fail with {@code CommitFailedException} instead of deleting that data unseen.
 */
public final class PartitionOverwrite {

  private final TableStore table;
  private final Map<String, String> staticPartition;
  private boolean freshCommitUser;

  /**
   * @param staticPartition column to value (as text) of the partitions to replace; {@code null} for
   *     a dynamic overwrite
   * @throws IllegalArgumentException naming a column that is not a partition column
   */
  public PartitionOverwrite(TableStore table, Map<String, String> staticPartition) {
    this.table = table;
    this.staticPartition = staticPartition == null ? null : new LinkedHashMap<>(staticPartition);
    if (staticPartition != null) {
      for (String column : staticPartition.keySet()) {
        if (!table.schema().partitionKeys().contains(column)) {
          throw new IllegalArgumentException(
              "'"
                  + column
                  + "' is not a partition column of "
                  + table.fullName()
                  + "; the partition columns are "
                  + table.schema().partitionKeys());
        }
      }
    }
  }

  /**
   * Declares that the commit users given to {@link #overwrite} have committed nothing to the table
   * before (names minted for one overwrite): see {@link TableCommit#withFreshCommitUser()}.
   *
   * @return this
   */
  public PartitionOverwrite withFreshCommitUser() {
    this.freshCommitUser = true;
    return this;
  }

  /** Whether a partition (column to typed value) matches a spec of column to text. */
  public static boolean matches(Map<String, Object> partition, Map<String, String> spec) {
    for (Map.Entry<String, String> e : spec.entrySet()) {
      Object value = partition.get(e.getKey());
      String text =
          value == null ? dev.lockstep.engine.data.PartitionPath.NULL_VALUE : value.toString();
      if (!Objects.equals(text, e.getValue())) {
        return false;
      }
    }
    return true;
  }

  /** The partition-path filter of a spec, for scans and overwrites. */
  public static Predicate<String> pathFilter(TableStore table, Map<String, String> spec) {
    return path -> matches(table.partitionPath().toMap(path), spec);
  }

  /**
   * Writes {@code rows} and commits them as one OVERWRITE under {@code commitUser}.
   *
   * @throws IllegalArgumentException when a row lies outside the static partition (nothing is
   *     written)
   */
  public CommitResult overwrite(String commitUser, long identifier, List<GenericRow> rows)
      throws IOException {
    List<String> keys = table.schema().partitionKeys();
    if (staticPartition != null) {
      int[] index = table.schema().rowType().indexesOf(keys);
      for (GenericRow row : rows) {
        Map<String, Object> partition = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
          partition.put(keys.get(i), row.get(index[i]));
        }
        if (!matches(partition, staticPartition)) {
          throw new IllegalArgumentException(
              "Row "
                  + row
                  + " lies in partition "
                  + partition
                  + ", outside the partition being overwritten "
                  + staticPartition
                  + "; drop the partition filter for a dynamic overwrite, or fix the row.");
        }
      }
    }
    table.requireWritable();
    // Made before any file is written: it reads the snapshots, and may fail on a damaged one.
    TableCommit commit = new TableCommit(table, commitUser);
    if (freshCommitUser) {
      commit.withFreshCommitUser();
    }
    try (TableWrite write = new TableWrite(table, commitUser)) {
      for (GenericRow row : rows) {
        write.write(row);
      }
      Predicate<String> filter =
          staticPartition == null ? null : pathFilter(table, staticPartition);
      List<dev.lockstep.engine.write.CommitMessage> messages = write.prepareCommit();
      try {
        return commit.overwrite(identifier, filter, messages);
      } catch (dev.lockstep.commit.CommitStateUnknownException unknown) {
        throw unknown; // the snapshot may have landed: its files may be live
      } catch (IOException | RuntimeException failed) {
        // Nothing was published (TableCommit's contract): the new files are nobody's. The
        // interrupt flag is cleared meanwhile: the deletes must not fail on it.
        boolean wasInterrupted = Thread.interrupted();
        try {
          commit.abort(identifier, messages);
        } catch (IOException | RuntimeException e) {
          // abort reads the snapshots (which may be what failed). These files were written by this
          // call under fresh names and nothing of it was published: no snapshot can hold them.
          for (dev.lockstep.engine.write.CommitMessage m : messages) {
            for (dev.lockstep.engine.manifest.DataFileMeta f : m.newFiles()) {
              try {
                table
                    .fileIO()
                    .delete(table.bucketPath(m.partition(), m.bucket()).child(f.fileName()), false);
              } catch (IOException | RuntimeException ignored) {
                failed.addSuppressed(ignored);
              }
            }
          }
        } finally {
          if (wasInterrupted) {
            Thread.currentThread().interrupt();
          }
        }
        throw failed;
      }
    }
  }
}
