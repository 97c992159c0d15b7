package dev.lockstep.engine.scan;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowKind;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.ConsumerManager;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.store.ChangelogOptions;
import dev.lockstep.engine.store.ChangelogOptions.ScanMode;
import dev.lockstep.engine.store.TableStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A stream of a table's changes, snapshot by snapshot, in commit order (docs/engine.md, "Changelog
 * and streaming reads"):
 *
 * <ul>
 *   <li>append tables: the rows of each APPEND snapshot's new data files ({@code +I});
 *   <li>primary-key tables with {@code changelog-producer} {@code input} or {@code lookup}: the
 *       rows of each snapshot's changelog files, with their kinds, in the order they were written;
 *   <li>primary-key tables with {@code none}: the rows of each APPEND snapshot's new files, one per
 *       key and bucket (the winner among that snapshot's rows), as upserts: {@code +I}/{@code +U}
 *       for a key that is set, {@code -D} for a key the snapshot removed (which may not have
 *       existed). The reader must normalize them against its own state;
 *   <li>an OVERWRITE snapshot: {@code -D} for every row of the files it replaced, then its new
 *       rows.
 * </ul>
 *
 * Snapshots that change nothing for a reader (COMPACT without changelog) are skipped. Where the
 * stream starts is {@code scan.mode}; with {@code consumer-id}, the position a {@link
 * #checkpoint()} recorded wins, and expiration keeps every snapshot from it on. When the snapshot
 * the stream needs next has expired, {@link #next()} fails with {@link SnapshotExpiredException};
 * it never skips data. Not thread-safe.
 */
public final class StreamTableScan {

  /** One changed row. */
  public record Change(RowKind kind, GenericRow row) {
    @Override
    public String toString() {
      return kind.shortString() + row;
    }
  }

  /**
   * The changes of one snapshot ({@code full}: the whole table at it, as {@code +I}, where the
   * stream starts with a full read).
   */
  public record Changes(long snapshotId, CommitKind commitKind, boolean full, List<Change> rows) {
    public Changes {
      rows = List.copyOf(rows);
    }
  }

  /** The snapshot a stream needed next is gone: it would have to skip data, and does not. */
  public static final class SnapshotExpiredException extends FileNotFoundException {
    public SnapshotExpiredException(String message) {
      super(message);
    }
  }

  private final TableStore table;
  private final ChangelogOptions options;
  private final SnapshotManager snapshots;
  private final FileStoreScan scan;
  private final ConsumerManager consumers;

  /** The next snapshot to read; {@code -1} before the first {@link #next()}. */
  private long nextSnapshot = -1;

  /** The first call reads the table in full at this snapshot (a {@code *-full} mode). */
  private long fullAt = -1;

  public StreamTableScan(TableStore table) {
    this.table = table;
    this.options = table.changelogOptions();
    this.snapshots = table.snapshotManager();
    this.scan = new FileStoreScan(table);
    this.consumers = new ConsumerManager(table.fileIO(), table.path());
  }

  /** Starts (or resumes) at {@code nextSnapshot}, for example a position a checkpoint returned. */
  public StreamTableScan restore(long nextSnapshot) {
    if (nextSnapshot < 1) {
      throw new IllegalArgumentException(
          "A stream position is a snapshot id, at least 1; got " + nextSnapshot + ".");
    }
    this.nextSnapshot = nextSnapshot;
    this.fullAt = -1;
    return this;
  }

  /**
   * The position to resume from: the next snapshot this stream reads. With {@code consumer-id} it
   * is also recorded in {@code consumer/consumer-<id>} (call it once the changes returned so far
   * are processed: a restarted reader resumes there, and expiration keeps it).
   */
  public long checkpoint() throws IOException {
    start();
    if (options.consumerId() != null) {
      consumers.record(options.consumerId(), nextSnapshot);
    }
    return nextSnapshot;
  }

  /**
   * Whether the stream (its start decided now, if not yet) begins with a full read of a snapshot
   * that {@link #next()} has not returned yet. Its {@link #position()} alone cannot resume such a
   * stream: {@link #restore} at that position would skip the full read.
   */
  public boolean fullReadPending() throws IOException {
    start();
    return fullAt > 0;
  }

  /** The next snapshot this stream reads (after the start position was decided). */
  public long position() throws IOException {
    start();
    return nextSnapshot;
  }

  /**
   * The changes of the next snapshot that has any; empty when the stream has caught up with the
   * latest snapshot (call again later).
   *
   * @throws SnapshotExpiredException when the snapshot to read next has expired
   */
  public Optional<Changes> next() throws IOException {
    start();
    if (fullAt > 0) {
      long at = fullAt;
      Snapshot s = snapshots.get(at);
      List<Change> rows = new ArrayList<>();
      TableRead read = new TableRead(table);
      for (Split split : new TableScan(table).withSnapshot(s).plan().splits()) {
        read.forEach(split, row -> rows.add(new Change(RowKind.INSERT, row)));
      }
      fullAt = -1;
      return Optional.of(new Changes(at, s.commitKind(), true, rows));
    }
    while (true) {
      OptionalLong latest = snapshots.latestId();
      if (latest.isEmpty() || nextSnapshot > latest.getAsLong()) {
        return Optional.empty();
      }
      Snapshot s = read(nextSnapshot, latest.getAsLong());
      List<Change> rows;
      try {
        rows = changes(s);
      } catch (FileNotFoundException e) {
        // Expired while being read: the same answer as before the read.
        read(nextSnapshot, latest.getAsLong());
        throw e;
      }
      nextSnapshot++;
      if (rows != null) {
        return Optional.of(new Changes(s.id(), s.commitKind(), false, rows));
      }
    }
  }

  private Snapshot read(long id, long latest) throws IOException {
    Optional<Snapshot> s = snapshots.readUncached(id);
    if (s.isPresent()) {
      return s.get();
    }
    long earliest = snapshots.earliestId().orElse(latest);
    throw new SnapshotExpiredException(
        "Snapshot "
            + id
            + " of "
            + table.fullName()
            + ", the next one this stream reads, has expired (snapshots "
            + earliest
            + ".."
            + latest
            + " remain), so its changes are lost to this reader; register the reader with"
            + " 'consumer-id' (expiration then keeps what it has not read) or raise"
            + " 'snapshot.time-retained', and restart it from 'scan.mode' = 'latest-full'.");
  }

  /** Decides where the stream starts, once. */
  private void start() throws IOException {
    if (nextSnapshot > 0) {
      return;
    }
    String consumer = options.consumerId();
    if (consumer != null) {
      OptionalLong recorded = consumers.nextSnapshot(consumer);
      if (recorded.isPresent()) {
        nextSnapshot = recorded.getAsLong();
        return;
      }
    }
    OptionalLong latest = snapshots.latestId();
    ScanMode mode = options.scanMode();
    switch (mode) {
      case LATEST -> nextSnapshot = latest.orElse(0) + 1;
      case DEFAULT, LATEST_FULL, FULL -> {
        nextSnapshot = latest.orElse(0) + 1;
        fullAt = latest.isPresent() ? latest.getAsLong() : -1;
      }
      case FROM_SNAPSHOT -> nextSnapshot = options.scanSnapshotId();
      case FROM_SNAPSHOT_FULL -> {
        long id = options.scanSnapshotId();
        if (snapshots.readUncached(id).isEmpty()) {
          read(id, latest.orElse(id));
        }
        fullAt = id;
        nextSnapshot = id + 1;
      }
      case FROM_TIMESTAMP -> nextSnapshot = firstAfter(options.scanTimestampMillis(), latest);
    }
    if (consumer != null) {
      // Registered before the first read: expiration keeps the start from now on.
      consumers.record(consumer, fullAt > 0 ? fullAt : nextSnapshot);
    }
  }

  private long firstAfter(long millis, OptionalLong latest) throws IOException {
    if (latest.isEmpty()) {
      return 1;
    }
    long earliest = snapshots.earliestId().orElse(1);
    for (long id = latest.getAsLong(); id >= earliest; id--) {
      Optional<Snapshot> s = snapshots.find(id);
      if (s.isEmpty() || s.get().timeMillis() <= millis) {
        return id + 1;
      }
    }
    return earliest;
  }

  /** The changes {@code s} made for a reader; {@code null} when it made none (COMPACT). */
  private List<Change> changes(Snapshot s) throws IOException {
    if (s.commitKind() == CommitKind.OVERWRITE) {
      return overwrite(s);
    }
    // A snapshot with a changelog list (input, lookup; empty when the commit changed nothing) is
    // read from it; one without (none, or written before the table had a producer) by its files.
    if (table.primaryKeyTable() && s.changelogManifestList() != null) {
      List<Change> rows = new ArrayList<>();
      int fields = table.schema().fields().size();
      for (ManifestEntry e : scan.changelog(s)) {
        forEachFileRow(
            e, fileRow -> rows.add(new Change(table.rowKindOf(fileRow), fileRow.prefix(fields))));
      }
      return rows.isEmpty() ? null : rows;
    }
    if (s.commitKind() != CommitKind.APPEND) {
      return null;
    }
    List<ManifestEntry> added = new ArrayList<>();
    for (ManifestEntry e : scan.delta(s)) {
      if (e.kind() == FileKind.ADD) {
        added.add(e);
      }
    }
    return rowsOf(added, false);
  }

  /** {@code -D} of every row the overwrite replaced, then its new rows. */
  private List<Change> overwrite(Snapshot s) throws IOException {
    List<ManifestEntry> deleted = new ArrayList<>();
    List<ManifestEntry> added = new ArrayList<>();
    for (ManifestEntry e : scan.delta(s)) {
      (e.kind() == FileKind.ADD ? added : deleted).add(e);
    }
    List<Change> rows = new ArrayList<>(rowsOf(deleted, true));
    rows.addAll(rowsOf(added, false));
    return rows;
  }

  /**
   * The rows of {@code files}: in an append table each row ({@code +I}, or {@code -D} when {@code
   * retract}); in a primary-key table, per bucket, the winning row of each key among the files
   * (upserts; a winning retraction as {@code -D}; with {@code retract} every set key as {@code
   * -D}).
   */
  private List<Change> rowsOf(List<ManifestEntry> files, boolean retract) throws IOException {
    List<Change> rows = new ArrayList<>();
    if (!table.primaryKeyTable()) {
      for (ManifestEntry e : files) {
        forEachFileRow(e, r -> rows.add(new Change(retract ? RowKind.DELETE : RowKind.INSERT, r)));
      }
      return rows;
    }
    Map<BucketId, List<DataFileMeta>> byBucket = new LinkedHashMap<>();
    for (ManifestEntry e : files) {
      byBucket
          .computeIfAbsent(new BucketId(e.partition(), e.bucket()), b -> new ArrayList<>())
          .add(e.file());
    }
    for (Map.Entry<BucketId, List<DataFileMeta>> bucket : byBucket.entrySet()) {
      try (DeduplicateMerger merger =
          new DeduplicateMerger(
              table, bucket.getKey().partition(), bucket.getKey().bucket(), bucket.getValue())) {
        for (KeyValue kv = merger.next(); kv != null; kv = merger.next()) {
          if (retract) {
            if (!kv.deleted()) {
              rows.add(new Change(RowKind.DELETE, kv.row()));
            }
          } else {
            rows.add(new Change(kv.deleted() ? RowKind.DELETE : kv.kind(), kv.row()));
          }
        }
      }
    }
    return rows;
  }

  private void forEachFileRow(ManifestEntry e, java.util.function.Consumer<GenericRow> consumer)
      throws IOException {
    try (FormatReader reader =
        table
            .format()
            .createReader(
                table.fileIO(),
                table.bucketPath(e.partition(), e.bucket()).child(e.file().fileName()),
                table.dataFileRowType())) {
      for (GenericRow r = reader.next(); r != null; r = reader.next()) {
        consumer.accept(r);
      }
    }
  }
}
