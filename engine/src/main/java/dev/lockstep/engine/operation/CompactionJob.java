package dev.lockstep.engine.operation;

import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.store.TableStore;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The dedicated compaction job of a table whose writers run with {@code write-only=true}: once, or
 * continuously at an interval; minor (universal pick; in append tables runs of small files) or
 * full; optionally only some partitions. After each committed round it expires snapshots with the
 * table's options (the writers, being write-only, never do), unless told not to.
 *
 * <p>Each round is one {@link TableCompactor#compactOnce}: its view moves to the latest snapshot,
 * the buckets that need it are compacted, and the result is one COMPACT snapshot. A failed round
 * leaves no output file and changes nothing; the next round starts from the latest snapshot. Not
 * thread-safe.
 */
public final class CompactionJob implements Closeable {

  private final TableStore table;
  private final TableCompactor compactor;
  private final boolean full;
  private final boolean expire;
  private long rounds;
  private long commits;

  /**
   * @param partitionFilter which partition paths to compact ({@code p -> true}: all)
   * @param full merge every file of a bucket into one sorted run instead of the universal pick
   * @param expire expire snapshots after each committed round
   */
  public CompactionJob(
      TableStore table,
      String commitUser,
      Predicate<String> partitionFilter,
      boolean full,
      boolean expire) {
    this.table = table;
    table.requireWritable();
    this.compactor = new TableCompactor(table, commitUser).withPartitionFilter(partitionFilter);
    this.full = full;
    this.expire = expire;
  }

  /** One round; empty when no bucket needed compaction. */
  public Optional<CommitResult> runOnce() throws IOException {
    rounds++;
    Optional<CommitResult> result = compactor.compactOnce(full);
    if (result.isPresent()) {
      commits++;
      if (expire) {
        new SnapshotExpiration(table).expire();
      }
    }
    return result;
  }

  /**
   * Rounds until {@code keepRunning} says no, sleeping {@code interval} after a round that found
   * nothing to do.
   *
   * @return the number of COMPACT snapshots committed
   */
  public long runContinuously(Duration interval, BooleanSupplier keepRunning) throws IOException {
    long before = commits;
    while (keepRunning.getAsBoolean()) {
      if (runOnce().isEmpty()) {
        try {
          Thread.sleep(interval.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("Interrupted between compaction rounds");
        }
      }
    }
    return commits - before;
  }

  public long rounds() {
    return rounds;
  }

  /** COMPACT snapshots committed by this job. */
  public long commits() {
    return commits;
  }

  /** File conflicts met; zero when every writer is write-only. */
  public long fileConflicts() {
    return compactor.fileConflicts();
  }

  @Override
  public void close() {
    compactor.close();
  }
}
